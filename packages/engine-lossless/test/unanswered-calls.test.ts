import {
  type AgentMessage,
  charEstimateTokenCounter,
  countMessagesTokens,
  SYNTHETIC_TOOL_RESULT_TEXT,
} from "@clew/core";
import { orphanToolResults } from "@clew/plugin-sdk/testing";
import { afterAll, describe, expect, it } from "vitest";
import { SessionView } from "../src/view/session-view.js";
import { assistantText, assistantToolCall, toolResult, userText } from "./support/conversations.js";
import { TempEngines } from "./support/temp-engine.js";

const engines = new TempEngines();
afterAll(() => engines.cleanup());

/** Ids of tool calls in `messages` that no tool result answers. */
function unansweredCalls(messages: readonly AgentMessage[]): string[] {
  const answered = new Set(
    messages.flatMap((message) => (message.role === "toolResult" ? [message.toolCallId] : [])),
  );
  return messages.flatMap((message) =>
    message.role === "assistant"
      ? message.content.flatMap((block) =>
          block.type === "toolCall" && !answered.has(block.id) ? [block.id] : [],
        )
      : [],
  );
}

const T = 1_700_000_000_000;
/** A turn aborted mid-tool: the call was stored, its result never was. */
const history: AgentMessage[] = [
  userText("run the migration", T),
  assistantToolCall("call_lost", "exec", { command: "npm run migrate" }, T + 1),
  userText("never mind, what were we doing?", T + 2),
  assistantText("We were migrating the schema.", T + 3),
  userText("and now check the logs", T + 4),
  assistantToolCall("call_last", "read", { path: "logs/app.log" }, T + 5),
];

describe("tool calls a stored turn never answered", () => {
  it("are answered in the context with synthetic error results, inside the view and at its end", async () => {
    const engine = await engines.engineWithTurn(history);
    const result = await engine.assemble({ sessionId: "s", messages: history, tokenBudget: 50_000 });
    expect(unansweredCalls(result.messages)).toEqual([]);
    expect(orphanToolResults(result.messages)).toEqual([]);
    const synthetic = result.messages.filter(
      (message) =>
        message.role === "toolResult" && JSON.stringify(message.content).includes(SYNTHETIC_TOOL_RESULT_TEXT),
    );
    expect(synthetic.map((message) => (message as { toolCallId: string }).toolCallId)).toEqual([
      "call_lost",
      "call_last",
    ]);
    // Each sits right after the call it answers.
    const lost = result.messages.indexOf(synthetic[0] as AgentMessage);
    expect(result.messages[lost - 1]).toEqual(history[1]);
    expect(result.estimatedTokens).toBeGreaterThanOrEqual(
      countMessagesTokens(charEstimateTokenCounter, result.messages),
    );
  });

  it("leaves the stored history as it was: recall reads no synthetic message", async () => {
    const engine = await engines.engineWithTurn(history);
    const [, read] = engine.tools({ sessionId: "s" });
    const page = await read?.execute("t", { from: 0, maxTokens: 10_000 });
    expect(JSON.stringify(page?.details)).not.toContain(SYNTHETIC_TOOL_RESULT_TEXT);
    expect((await engine.inspect("s")).session.messageCount).toBe(history.length);
  });

  it("does not answer the newest call when the host's unstored messages carry its result", async () => {
    const engine = await engines.engineWithTurn(history);
    const result = toolResult("call_last", "read", "INFO all good", T + 6);
    const assembled = await engine.assemble({
      sessionId: "s",
      messages: [...history, result],
      tokenBudget: 50_000,
    });
    expect(assembled.messages.at(-1)).toEqual(result);
    expect(unansweredCalls(assembled.messages)).toEqual([]);
    expect(JSON.stringify(assembled.messages).split(SYNTHETIC_TOOL_RESULT_TEXT).length - 1).toBe(1);
  });
});

describe("the view's tally of an unanswered call's synthetic result", () => {
  it("counts the synthetic result as neither a raw message nor a summary", () => {
    const view = new SessionView(1);
    history.slice(0, 4).forEach((message, index) => {
      view.push({
        position: index + 1,
        ref: { kind: "message", seq: index + 1 },
        tokens: 10,
        message,
        createdAt: T + index,
      });
    });
    // The four messages plus the synthetic result answering call_lost.
    expect(view.assembledItems).toHaveLength(5);
    expect(view.prefixTally(5)).toEqual({ messages: 4, summaries: 0, firstSeq: 1, lastSeq: 4 });
  });
});
