import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentMessage } from "@clew/core";
import { afterEach, describe, expect, it } from "vitest";
import { formatStatusLines } from "../src/inspect/format-report.js";
import { LosslessEngine } from "../src/lossless-engine.js";
import { modelCallCache, sumModelCalls } from "../src/recorder/model-call-cache.js";
import { openSqliteStore } from "../src/store/sqlite/sqlite-store.js";
import { assistantText, codingConversation, userText } from "./support/conversations.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const NOW = 1_800_000_000_000;

/** An engine whose clock stands at `NOW`, over a temp database. */
async function engineAtNow() {
  const directory = await mkdtemp(join(tmpdir(), "clew-lossless-cache-"));
  cleanups.push(() => rm(directory, { recursive: true, force: true }));
  const store = openSqliteStore(join(directory, "lossless.db"));
  let elapsed = 0;
  const engine = new LosslessEngine(store, { now: () => NOW, elapsed: () => (elapsed += 250) });
  cleanups.push(() => engine.dispose());
  return { engine, store };
}

/** `message` with the usage of a call whose prompt the provider's cache served as given. */
function withUsage(message: AgentMessage, usage: { input: number; cacheRead: number; cacheWrite: number }) {
  if (message.role !== "assistant") return message;
  const totalTokens = usage.input + usage.cacheRead + usage.cacheWrite + 20;
  return { ...message, usage: { ...message.usage, ...usage, output: 20, totalTokens } } as AgentMessage;
}

/** `messages` moved in time so that the last one is at `lastAt`, spacing kept. */
function endingAt(messages: AgentMessage[], lastAt: number): AgentMessage[] {
  const last = (messages.at(-1) as { timestamp: number }).timestamp;
  return messages.map(
    (message) =>
      ({
        ...message,
        timestamp: (message as { timestamp: number }).timestamp - last + lastAt,
      }) as AgentMessage,
  );
}

/** Stores `turn` after `history` (both of session `s`), as a host's `afterTurn` does. */
async function storeTurn(engine: LosslessEngine, history: AgentMessage[], turn: AgentMessage[]) {
  await engine.afterTurn({
    sessionId: "s",
    sessionFile: "memory:s",
    messages: [...history, ...turn],
    prePromptMessageCount: history.length,
  });
}

/**
 * The order around a forced compaction: `history` stored, a pass that compacts it, then `turn`
 * stored after the pass. Answers the pass's record, read before `turn` was stored.
 */
async function compactBetween(engine: LosslessEngine, history: AgentMessage[], turn: AgentMessage[]) {
  await storeTurn(engine, [], history);
  const compacted = await engine.compact({ sessionId: "s", tokenBudget: 3_000, force: true });
  expect(compacted).toMatchObject({ ok: true, compacted: true });
  const pass = (await engine.inspect("s")).lastCompaction;
  await storeTurn(engine, history, turn);
  return pass;
}

describe("the provider's prompt cache, from the replies' usage", () => {
  it("reads a reply's figures and ignores replies that sent nothing, other roles and odd counts", () => {
    const reply = withUsage(assistantText("ok", 5), { input: 100, cacheRead: 850, cacheWrite: 50 });
    expect(modelCallCache(reply, 7)).toEqual({
      at: 7,
      promptTokens: 1_000,
      cacheReadTokens: 850,
      cacheWriteTokens: 50,
    });
    expect(modelCallCache(assistantText("replayed", 5), 7)).toBeUndefined();
    expect(modelCallCache(userText("hi", 5), 7)).toBeUndefined();
    expect(modelCallCache({ role: "assistant" }, 7)).toBeUndefined();
    const odd = { role: "assistant", usage: { input: "12", cacheRead: -4, cacheWrite: Number.NaN } };
    expect(modelCallCache(odd, 7)).toBeUndefined();
    const calls = [
      { at: 1, promptTokens: 1_000, cacheReadTokens: 900, cacheWriteTokens: 0 },
      { at: 2, promptTokens: 1_000, cacheReadTokens: 100, cacheWriteTokens: 800 },
    ];
    expect(sumModelCalls(calls)).toEqual({
      calls: 2,
      promptTokens: 2_000,
      cacheReadTokens: 1_000,
      cacheWriteTokens: 800,
      callsMostlyMissed: 1,
    });
  });

  it("shows what a compaction did to the cache: the call before it, the first call after it", async () => {
    const { engine } = await engineAtNow();
    const history = endingAt(
      codingConversation(12, { toolOutputChars: 2_000 }).map((message, index) =>
        withUsage(message, { input: 40, cacheRead: 900 + index, cacheWrite: 60 }),
      ),
      NOW - 120_000,
    );
    // The host compacts in the middle of a turn (an overflow): the turn's first call was made
    // before the pass and is stored after it, with the rest of the turn.
    const turn = [
      userText("Go on.", NOW - 1_000),
      withUsage(assistantText("Called before the pass.", NOW - 900), {
        input: 10,
        cacheRead: 970,
        cacheWrite: 20,
      }),
      userText("Meanwhile.", NOW + 50),
      // Sent while the pass ran (it lasted 250 ms): neither before nor after it.
      withUsage(assistantText("Sent during the pass.", NOW + 100), {
        input: 10,
        cacheRead: 990,
        cacheWrite: 0,
      }),
      userText("And now?", NOW + 1_000),
      withUsage(assistantText("Rebuilt the prefix.", NOW + 1_001), {
        input: 30,
        cacheRead: 0,
        cacheWrite: 1_970,
      }),
      userText("Again.", NOW + 2_000),
      withUsage(assistantText("Cached again.", NOW + 2_001), { input: 25, cacheRead: 1_970, cacheWrite: 5 }),
    ];
    const pass = await compactBetween(engine, history, turn);
    expect(pass?.newestSeq).toBe(history.length);
    const report = await engine.inspect("s");
    expect(report.lastCompactionCacheEffect).toEqual({
      before: { at: NOW - 900, promptTokens: 1_000, cacheReadTokens: 970, cacheWriteTokens: 20 },
      after: { at: NOW + 1_001, promptTokens: 2_000, cacheReadTokens: 0, cacheWriteTokens: 1_970 },
    });
    const calls = history.filter((message) => message.role === "assistant").length + 4;
    expect(report.providerCache).toMatchObject({ calls, callsMostlyMissed: 1 });
    const lines = formatStatusLines(report, NOW + 3_000);
    expect(lines.find((line) => line.startsWith("Last compaction:"))).toContain("provider cache 97% → 0%");
    expect(lines.find((line) => line.startsWith("Provider cache:"))).toMatch(
      new RegExp(
        `^Provider cache: \\d+% of [\\d,]+ prompt tokens read from cache over the last ${calls} model calls \\(1 call under half\\)$`,
      ),
    );
  });

  it("passes over failed calls, whose replies report no usage, on both sides of the pass", async () => {
    const { engine } = await engineAtNow();
    const conversation = codingConversation(12, { toolOutputChars: 2_000 }).map((message) =>
      withUsage(message, { input: 40, cacheRead: 900, cacheWrite: 60 }),
    );
    const last = (conversation.at(-1) as { timestamp: number }).timestamp;
    const history = endingAt(
      [
        ...conversation,
        userText("One more thing.", last + 1),
        // The turn ended in an error: a reply without usage, stamped when its call started.
        { ...assistantText("", last + 2), stopReason: "error" } as AgentMessage,
      ],
      NOW - 60_000,
    );
    const turn = [
      userText("Try again.", NOW + 1_000),
      { ...assistantText("", NOW + 1_001), stopReason: "error" } as AgentMessage,
      withUsage(assistantText("Retried.", NOW + 3_000), { input: 100, cacheRead: 0, cacheWrite: 1_900 }),
    ];
    await compactBetween(engine, history, turn);
    const effect = (await engine.inspect("s")).lastCompactionCacheEffect;
    expect(effect?.before).toMatchObject({ cacheReadTokens: 900, promptTokens: 1_000 });
    expect(effect?.after).toEqual({
      at: NOW + 3_000,
      promptTokens: 2_000,
      cacheReadTokens: 0,
      cacheWriteTokens: 1_900,
    });
  });

  it("leaves out calls more than ten minutes from the pass: the provider's cache had expired", async () => {
    const { engine } = await engineAtNow();
    const minutes = 60_000;
    const history = endingAt(
      codingConversation(12, { toolOutputChars: 2_000 }).map((message) =>
        withUsage(message, { input: 40, cacheRead: 900, cacheWrite: 60 }),
      ),
      NOW - 11 * minutes,
    );
    const turn = [
      userText("Back after lunch.", NOW + 11 * minutes),
      withUsage(assistantText("Everything was read afresh.", NOW + 11 * minutes + 1), {
        input: 2_000,
        cacheRead: 0,
        cacheWrite: 0,
      }),
    ];
    await compactBetween(engine, history, turn);
    const report = await engine.inspect("s");
    expect(report.lastCompactionCacheEffect).toBeUndefined();
    expect(report.providerCache?.calls).toBe(
      history.filter((message) => message.role === "assistant").length + 1,
    );
    expect(formatStatusLines(report, NOW).join("\n")).not.toContain("provider cache");
  });

  it("sums the calls among the newest 200 messages only", async () => {
    const { engine } = await engineAtNow();
    // 150 exchanges: the oldest 50 replies missed the cache, the newest 100 read from it.
    const messages = Array.from({ length: 150 }, (_, index) => [
      userText(`question ${index}`, NOW - 1_000_000 + 2 * index),
      withUsage(assistantText(`answer ${index}`, NOW - 1_000_000 + 2 * index + 1), {
        input: index < 50 ? 1_000 : 100,
        cacheRead: index < 50 ? 0 : 900,
        cacheWrite: 0,
      }),
    ]).flat();
    await storeTurn(engine, [], messages);
    const report = await engine.inspect("s");
    expect(report.providerCache).toEqual({
      calls: 100,
      promptTokens: 100_000,
      cacheReadTokens: 90_000,
      cacheWriteTokens: 0,
      callsMostlyMissed: 0,
    });
  });

  it("says nothing of the cache when no reply reported usage (a replay)", async () => {
    const { engine } = await engineAtNow();
    await storeTurn(engine, [], codingConversation(12, { toolOutputChars: 2_000 }));
    await engine.compact({ sessionId: "s", tokenBudget: 3_000, force: true });
    const report = await engine.inspect("s");
    expect(report.lastCompaction?.newestSeq).toBeGreaterThan(0);
    expect(report.lastCompactionCacheEffect).toBeUndefined();
    expect(report.providerCache).toBeUndefined();
    const lines = formatStatusLines(report, NOW);
    expect(lines.join("\n")).not.toContain("cache");
  });
});
