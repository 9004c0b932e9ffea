import type { AgentMessage, TranscriptEntry } from "../../src/index.js";

/** Chains messages into transcript entries with ids e1, e2, ... */
export function toEntries(messages: readonly AgentMessage[], startId = 1): TranscriptEntry[] {
  return messages.map((message, index) => ({
    type: "message",
    id: `e${index + startId}`,
    parentId: index + startId === 1 ? null : `e${index + startId - 1}`,
    timestamp: new Date(1_700_000_000_000 + index * 1000).toISOString(),
    message,
  }));
}

export function toolCallTurn(turn: number, calls: number, resultChars: number): AgentMessage[] {
  const messages: AgentMessage[] = [{ role: "user", content: `task ${turn}`, timestamp: turn }];
  const ids = Array.from({ length: calls }, (_, call) => `call_${turn}_${call}`);
  if (calls > 0) {
    messages.push({
      role: "assistant",
      content: ids.map((id) => ({
        type: "toolCall" as const,
        id,
        name: "read",
        arguments: { path: `src/${id}.ts` },
      })),
      api: "openai-completions",
      provider: "test",
      model: "test",
      usage: {
        input: 0,
        output: 0,
        cacheRead: 0,
        cacheWrite: 0,
        totalTokens: 0,
        cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
      },
      stopReason: "toolUse",
      timestamp: turn,
    });
    for (const id of ids) {
      messages.push({
        role: "toolResult",
        toolCallId: id,
        toolName: "read",
        content: [{ type: "text", text: "x".repeat(resultChars) }],
        isError: false,
        timestamp: turn,
      });
    }
  }
  messages.push({
    role: "assistant",
    content: [{ type: "text", text: `done ${turn}` }],
    api: "openai-completions",
    provider: "test",
    model: "test",
    usage: {
      input: 0,
      output: 0,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: 0,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
    },
    stopReason: "stop",
    timestamp: turn,
  });
  return messages;
}
