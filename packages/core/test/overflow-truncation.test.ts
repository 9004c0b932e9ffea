import { describe, expect, it } from "vitest";
import { type AgentMessage, ContextOverflowError, type ModelStepRequest } from "../src/index.js";
import { assistantMessage, createTestHost, testModel, userMessage } from "./support.js";

function hugeToolTurn(chars: number): AgentMessage[] {
  return [
    userMessage("read the log"),
    {
      role: "assistant",
      content: [{ type: "toolCall", id: "call_1", name: "read", arguments: { path: "app.log" } }],
      api: "openai-completions",
      provider: "test",
      model: "test-model",
      usage: assistantMessage("").usage,
      stopReason: "toolUse",
      timestamp: 2,
    },
    {
      role: "toolResult",
      toolCallId: "call_1",
      toolName: "read",
      content: [{ type: "text", text: `START ${"x".repeat(chars)} END` }],
      isError: false,
      timestamp: 3,
    },
    assistantMessage("it is long"),
  ];
}

describe("overflow recovery after compaction gives up", () => {
  it("cuts oversized tool results in the request once, keeping them whole in the transcript", async () => {
    const { host, sessions } = createTestHost({
      runtimeCompaction: async () => ({ ok: true, compacted: false, reason: "nothing to compact" }),
    });
    const session = sessions.open({ sessionId: "s1", messages: hugeToolTurn(200_000) });
    const requests: ModelStepRequest[] = [];
    const result = await host.runTurn({
      session,
      prompt: "summarize it",
      systemPrompt: "test",
      model: { ...testModel, contextWindow: 1_000_000 },
      callModel: async (request) => {
        requests.push(request);
        const text = JSON.stringify(request.messages);
        if (text.length > 100_000) throw new ContextOverflowError("prompt is too long");
        return { messages: [assistantMessage("done")], done: true };
      },
    });
    expect(result.newMessages.at(-1)).toMatchObject({ role: "assistant" });
    const last = JSON.stringify(requests.at(-1)?.messages);
    expect(last).toContain("more characters truncated");
    expect(last).toContain("START");
    expect(last).toContain("END");
    const stored = JSON.stringify(await session.messages());
    expect(stored).toContain("x".repeat(200_000));
  });

  it("gives a clear error when cutting tool results does not help either", async () => {
    const { host, sessions } = createTestHost({
      runtimeCompaction: async () => ({ ok: true, compacted: false, reason: "nothing to compact" }),
    });
    const session = sessions.open({ sessionId: "s1", messages: hugeToolTurn(200_000) });
    let calls = 0;
    const turn = host.runTurn({
      session,
      prompt: "summarize it",
      systemPrompt: "test",
      model: { ...testModel, contextWindow: 1_000_000 },
      callModel: async () => {
        calls++;
        throw new ContextOverflowError("prompt is too long");
      },
    });
    await expect(turn).rejects.toThrow(
      /Context overflow: prompt too large for the model \(provider\)\. Compaction did not help: nothing to compact/,
    );
    expect(calls).toBe(2);
  });
});
