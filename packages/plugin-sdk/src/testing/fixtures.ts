import type { AgentMessage, AssistantMessage, ToolResultMessage, UserMessage } from "@clew/core";

const zeroUsage = {
  input: 0,
  output: 0,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 0,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
};

export function userText(text: string, timestamp: number): UserMessage {
  return { role: "user", content: text, timestamp };
}

export function assistantText(text: string, timestamp: number): AssistantMessage {
  return {
    role: "assistant",
    content: [{ type: "text", text }],
    api: "openai-completions",
    provider: "contract-suite",
    model: "contract-model",
    usage: zeroUsage,
    stopReason: "stop",
    timestamp,
  };
}

export function assistantToolCall(
  id: string,
  name: string,
  args: Record<string, unknown>,
  timestamp: number,
): AssistantMessage {
  return {
    role: "assistant",
    content: [{ type: "toolCall", id, name, arguments: args }],
    api: "openai-completions",
    provider: "contract-suite",
    model: "contract-model",
    usage: zeroUsage,
    stopReason: "toolUse",
    timestamp,
  };
}

export function toolResult(
  toolCallId: string,
  toolName: string,
  text: string,
  timestamp: number,
): ToolResultMessage {
  return {
    role: "toolResult",
    toolCallId,
    toolName,
    content: [{ type: "text", text }],
    isError: false,
    timestamp,
  };
}

/**
 * A deterministic coding conversation of `turns` turns: every third turn reads a file through a
 * tool call, so engines see tool pairs, long tool output and plain chat.
 */
export function codingConversation(
  turns: number,
  options: { toolOutputChars?: number } = {},
): AgentMessage[] {
  const outputChars = options.toolOutputChars ?? 2_000;
  const messages: AgentMessage[] = [];
  let clock = 1_700_000_000_000;
  for (let turn = 0; turn < turns; turn++) {
    messages.push(
      userText(`Turn ${turn}: please look at src/module-${turn}.ts and explain what it does.`, clock++),
    );
    if (turn % 3 === 0) {
      const id = `call_${turn}`;
      messages.push(assistantToolCall(id, "read", { path: `src/module-${turn}.ts` }, clock++));
      const body = `export const value${turn} = ${turn};\n`
        .repeat(Math.ceil(outputChars / 30))
        .slice(0, outputChars);
      messages.push(toolResult(id, "read", body, clock++));
    }
    messages.push(
      assistantText(`Module ${turn} exports value${turn}; it is a constant used by the build.`, clock++),
    );
  }
  return messages;
}

/** Freezes a value and everything inside it, so any mutation throws in strict mode. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  }
  return value;
}

/** Tool results in `messages` whose call is not earlier in the same list. */
export function orphanToolResults(messages: readonly AgentMessage[]): string[] {
  const calls = new Set<string>();
  const orphans: string[] = [];
  for (const message of messages) {
    if (typeof message !== "object" || message === null || !("role" in message)) continue;
    if (message.role === "assistant") {
      for (const block of message.content) if (block.type === "toolCall") calls.add(block.id);
    } else if (message.role === "toolResult" && !calls.has(message.toolCallId)) {
      orphans.push(message.toolCallId);
    }
  }
  return orphans;
}
