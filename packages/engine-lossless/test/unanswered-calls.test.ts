import {
  type AgentMessage,
  charEstimateTokenCounter,
  countMessagesTokens,
  SYNTHETIC_TOOL_RESULT_TEXT,
} from "@clew/core";
import { orphanToolResults } from "@clew/plugin-sdk/testing";
import { afterAll, describe, expect, it } from "vitest";
import { SessionView, type ViewItem } from "../src/view/session-view.js";
import { assistantText, assistantToolCall, toolResult, userText } from "./support/conversations.js";
import { TempEngines } from "./support/temp-engine.js";
import { raw, summary } from "./support/view-items.js";

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

/**
 * Ids of tool results a provider would reject: not in the group of the assistant message that
 * called them (only results may sit between the two), or answering a call already answered.
 */
function misplacedResults(messages: readonly AgentMessage[]): string[] {
  let groupCalls = new Set<string>();
  const misplaced: string[] = [];
  for (const message of messages) {
    if (message.role !== "toolResult") {
      groupCalls = new Set(
        message.role === "assistant"
          ? message.content.flatMap((block) => (block.type === "toolCall" ? [block.id] : []))
          : [],
      );
    } else if (!groupCalls.delete(message.toolCallId)) misplaced.push(message.toolCallId);
  }
  return misplaced;
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

describe("a steering message typed between a call and its result", () => {
  const steering = userText("also look at the error log", T + 6);
  const late = toolResult("call_last", "read", "INFO all good", T + 7);

  it("gives the newest stored call one result, the same before and after the turn is stored", async () => {
    const engine = await engines.engineWithTurn(history);
    const messages = [...history, steering, late];
    const during = await engine.assemble({ sessionId: "s", messages, tokenBudget: 50_000 });
    expect(misplacedResults(during.messages)).toEqual([]);
    expect(unansweredCalls(during.messages)).toEqual([]);
    expect(during.messages.at(-1)).toEqual(steering);
    await engine.afterTurn({ sessionId: "s", sessionFile: "memory:s", messages, prePromptMessageCount: 6 });
    const after = await engine.assemble({ sessionId: "s", messages, tokenBudget: 50_000 });
    expect(after.messages).toEqual(during.messages);
    // Counted alike, so a budget that fits the request now fits it once the turn is stored.
    expect(after.estimatedTokens).toBe(during.estimatedTokens);
  });

  it("groups a running turn's own calls the same way, inside a budget that cuts the view", async () => {
    const engine = await engines.engineWithTurn(history.slice(0, 4));
    const running: AgentMessage[] = [
      userText("and now check the logs", T + 4),
      assistantToolCall("call_a", "read", { path: "logs/a.log" }, T + 5),
      steering,
      toolResult("call_a", "read", "a: fine", T + 7),
      assistantToolCall("call_b", "read", { path: "logs/b.log" }, T + 8),
      toolResult("call_b", "read", "b: fine", T + 9),
      toolResult("call_b", "read", "b: fine, again", T + 10),
    ];
    const lengths: number[] = [];
    for (const tokenBudget of [50_000, 150]) {
      const result = await engine.assemble({
        sessionId: "s",
        messages: [...history.slice(0, 4), ...running],
        tokenBudget,
      });
      expect(result.estimatedTokens).toBeLessThanOrEqual(tokenBudget);
      expect(misplacedResults(result.messages)).toEqual([]);
      expect(unansweredCalls(result.messages)).toEqual([]);
      expect(result.messages.at(-1)).toEqual(running[5]);
      lengths.push(result.messages.length);
    }
    // The small budget left messages out.
    expect(lengths[1]).toBeLessThan(lengths[0] as number);
  });

  it("keeps one result per call in a stored history that holds two", async () => {
    const twice: AgentMessage[] = [
      ...history.slice(0, 5),
      assistantToolCall("call_twice", "read", { path: "a" }, T + 5),
      toolResult("call_twice", "read", "first", T + 6),
      toolResult("call_twice", "read", "second", T + 7),
    ];
    const engine = await engines.engineWithTurn(twice);
    const result = await engine.assemble({ sessionId: "s", messages: twice, tokenBudget: 50_000 });
    expect(misplacedResults(result.messages)).toEqual([]);
    expect(result.messages.at(-1)).toEqual(twice[6]);
  });

  it("groups a stored call whose turn also holds blocks that are not objects", async () => {
    const call = assistantToolCall("call_odd", "read", { path: "a" }, T + 5);
    const odd = { ...call, content: [null, 7, ...call.content] } as unknown as AgentMessage;
    const messages = [...history.slice(0, 5), odd, toolResult("call_odd", "read", "done", T + 6)];
    const engine = await engines.engineWithTurn(messages);
    const result = await engine.assemble({ sessionId: "s", messages, tokenBudget: 50_000 });
    // Assembled from the view, not handed back as the host's messages after a failure.
    expect(result.promptAuthority).toBe("assembled");
    expect(result.messages.slice(-2)).toEqual(messages.slice(-2));
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
    // The store's newest message is the view's last stored item, not the synthetic result.
    expect(view.newestSeq()).toBe(4);
  });

  it("knows the store's newest seq only when its last item is a message", () => {
    const endsWith = (...items: ViewItem[]) => {
      const view = new SessionView(1);
      for (const item of items) view.push(item);
      return view.newestSeq();
    };
    expect(endsWith()).toBeUndefined();
    expect(endsWith(summary(1), raw(2), raw(3))).toBe(3);
    expect(endsWith(raw(1), summary(2))).toBeUndefined();
  });
});
