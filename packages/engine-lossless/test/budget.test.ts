import {
  type AgentMessage,
  charEstimateTokenCounter,
  countMessagesTokens,
  loadO200kTokenCounter,
  type TokenCounter,
} from "@clew/core";
import { orphanToolResults } from "@clew/plugin-sdk/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { messageDigest } from "../src/ingest/message-identity.js";
import type { LosslessEngine } from "../src/lossless-engine.js";
import {
  assistantText,
  assistantToolCall,
  fillerText,
  longConversation,
  toolResult,
  userText,
} from "./support/conversations.js";
import { TempEngines } from "./support/temp-engine.js";

const BUDGETS = [60, 300, 700, 1_500, 2_500, 4_000, 6_000, 9_000, 14_000, 25_000, 50_000, 120_000];
const engines = new TempEngines();
const messages = longConversation(40);
let o200k: TokenCounter;

beforeAll(async () => {
  o200k = await loadO200kTokenCounter();
});
afterAll(() => engines.cleanup());

/** Tokens of what the model is sent for the history: the messages and the engine's prompt addition. */
function sentTokens(
  counter: TokenCounter,
  result: { messages: AgentMessage[]; systemPromptAddition?: string },
) {
  return countMessagesTokens(counter, result.messages) + counter.countText(result.systemPromptAddition ?? "");
}

async function checkEveryBudget(engine: LosslessEngine, counter: TokenCounter, sessionId: string) {
  await engine.afterTurn({
    sessionId,
    sessionFile: `memory:${sessionId}`,
    messages,
    prePromptMessageCount: 0,
  });
  let assembles = 0;
  for (const tokenBudget of [...BUDGETS].reverse()) {
    for (const phase of ["before compaction", "after compaction"]) {
      const compaction =
        phase === "after compaction"
          ? await engine.compact({ sessionId, tokenBudget, force: true })
          : undefined;
      const result = await engine.assemble({ sessionId, messages, tokenBudget });
      expect(sentTokens(counter, result), `${phase} at ${tokenBudget}`).toBeLessThanOrEqual(tokenBudget);
      expect(orphanToolResults(result.messages)).toEqual([]);
      // A compaction that reached its target leaves a view that assembles whole.
      if (compaction?.ok) expect(JSON.stringify(result.messages)).not.toContain("[Context note]");
      assembles += 1;
    }
  }
  return assembles;
}

describe("assembly stays within the budget", () => {
  it("never exceeds the budget by the engine's own counter (chars/4), before and after compaction", async () => {
    const engine = await engines.engine();
    expect(await checkEveryBudget(engine, charEstimateTokenCounter, "estimate")).toBe(BUDGETS.length * 2);
  });

  it("never exceeds the budget by o200k when the engine counts with o200k", async () => {
    const engine = await engines.engine({ tokenCounter: o200k });
    expect(await checkEveryBudget(engine, o200k, "o200k")).toBe(BUDGETS.length * 2);
  });

  it("a host's first maintain, before any assemble, compacts toward the budget it names", async () => {
    const engine = await engines.engine();
    const total = countMessagesTokens(charEstimateTokenCounter, messages);
    // A history imported at bootstrap, then the host's maintenance: the budget comes in
    // runtimeContext, as Clew's host sends it (the window less its reserve).
    await engine.ingestBatch({ sessionId: "named", messages });
    await engine.maintain({
      sessionId: "named",
      sessionFile: "memory:named",
      runtimeContext: { tokenBudget: Math.floor(total / 3) },
    });
    const named = (await engine.inspect("named")).lastCompaction;
    expect(named?.budgetTokens).toBeLessThanOrEqual(Math.floor(total / 3));
    expect(named?.tokensAfter).toBeLessThanOrEqual(Math.floor(total / 3));
    // A later assemble's budget, net of the system prompt, is the better figure and replaces it:
    // half of what is left is under the threshold, and the budget maintain names is not taken.
    const smaller = Math.floor((named?.tokensAfter ?? 0) / 2);
    await engine.assemble({ sessionId: "named", messages, tokenBudget: smaller });
    await engine.maintain({
      sessionId: "named",
      sessionFile: "memory:named",
      runtimeContext: { tokenBudget: total },
    });
    const second = (await engine.inspect("named")).lastCompaction;
    expect(second?.passId).not.toBe(named?.passId);
    expect(second?.budgetTokens).toBeLessThanOrEqual(smaller);
  });

  it("keeps the newest quarter of the budget as raw messages after compaction", async () => {
    const engine = await engines.engine();
    await engine.afterTurn({
      sessionId: "tail",
      sessionFile: "memory:tail",
      messages,
      prePromptMessageCount: 0,
    });
    for (const tokenBudget of [8_000, 4_000]) {
      await engine.compact({ sessionId: "tail", tokenBudget, force: true });
      const assembled = (await engine.assemble({ sessionId: "tail", messages, tokenBudget })).messages;
      let tail = 0;
      let raw = 0;
      for (let index = messages.length - 1; index >= 0; index--) {
        const message = messages[index] as AgentMessage;
        tail += charEstimateTokenCounter.countMessage(message);
        if (tail > tokenBudget / 4) break;
        raw += 1;
      }
      expect(raw).toBeGreaterThan(2);
      expect(assembled.slice(-raw).map(messageDigest)).toEqual(messages.slice(-raw).map(messageDigest));
      expect(JSON.stringify(assembled)).toContain("lossless-summary");
    }
  });

  it("shortens an oversized newest tool result for display instead of going over the budget", async () => {
    const engine = await engines.engine();
    const history = [
      ...messages.slice(0, 20),
      userText("read the giant log", 1_800_000_000_000),
      assistantToolCall("call_giant", "read", { path: "giant.log" }, 1_800_000_000_001),
      toolResult("call_giant", "read", `START ${fillerText(200_000, 11)} END`, 1_800_000_000_002),
    ];
    await engine.afterTurn({
      sessionId: "giant",
      sessionFile: "memory:giant",
      messages: history,
      prePromptMessageCount: 0,
    });
    const result = await engine.assemble({ sessionId: "giant", messages: history, tokenBudget: 8_000 });
    expect(sentTokens(charEstimateTokenCounter, result)).toBeLessThanOrEqual(8_000);
    const last = result.messages.at(-1) as { role: string; content: Array<{ text: string }> };
    expect(last.role).toBe("toolResult");
    expect(last.content[0]?.text).toMatch(/^START /);
    expect(last.content[0]?.text).toMatch(/ END$/);
    expect(last.content[0]?.text).toContain("recall_read m23 returns it whole");
    expect(orphanToolResults(result.messages)).toEqual([]);
  });
});

describe("the host's messages", () => {
  it("includes the current turn's messages the engine has not stored yet", async () => {
    const engine = await engines.engine();
    const history = messages.slice(0, 30);
    await engine.afterTurn({
      sessionId: "live",
      sessionFile: "memory:live",
      messages: history,
      prePromptMessageCount: 0,
    });
    const steps = [
      userText("run the tests", 1_900_000_000_000),
      assistantToolCall("call_live", "bash", { command: "npm test" }, 1_900_000_000_001),
      toolResult("call_live", "bash", "42 passed", 1_900_000_000_002),
    ];
    const result = await engine.assemble({
      sessionId: "live",
      messages: [...history, ...steps],
      tokenBudget: 100_000,
    });
    expect(result.messages.slice(-3)).toEqual(steps);
    expect(result.messages.slice(0, -3).map(messageDigest)).toEqual(history.map(messageDigest));
    await engine.afterTurn({
      sessionId: "live",
      sessionFile: "memory:live",
      messages: [...history, ...steps, assistantText("all green", 1_900_000_000_003)],
      prePromptMessageCount: history.length,
    });
    const next = await engine.assemble({
      sessionId: "live",
      messages: [...history, ...steps],
      tokenBudget: 100_000,
    });
    expect(next.messages).toHaveLength(history.length + 4);
  });

  it("stores a session it has never seen on its first assemble, up to the turn in progress", async () => {
    const engine = await engines.engine();
    const history = messages.slice(0, 12);
    const result = await engine.assemble({ sessionId: "first", messages: history, tokenBudget: 100_000 });
    expect(result.messages.map(messageDigest)).toEqual(history.map(messageDigest));
    // From the newest user message on, the messages are the turn in progress: stored by afterTurn.
    const turnStart = history.findLastIndex((message) => message.role === "user");
    expect(turnStart).toBeGreaterThan(0);
    expect((await engine.ingestBatch({ sessionId: "first", messages: history })).ingestedCount).toBe(
      history.length - turnStart,
    );
  });

  it("after a first assemble, the next afterTurn stores everything the first one left to the turn", async () => {
    const engine = await engines.engine();
    const history = messages.slice(0, 12);
    await engine.assemble({ sessionId: "first", messages: history, tokenBudget: 100_000 });
    const next = messages.slice(0, 16);
    // prePromptMessageCount points past the cut: only the resync stores the messages between.
    await engine.afterTurn({
      sessionId: "first",
      sessionFile: "memory:first",
      messages: next,
      prePromptMessageCount: 12,
    });
    expect((await engine.ingestBatch({ sessionId: "first", messages: next })).ingestedCount).toBe(0);
  });
});
