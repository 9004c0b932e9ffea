import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentMessage } from "@clew/core";
import { afterEach, describe, expect, it } from "vitest";
import { formatStatusLines } from "../src/inspect/format-report.js";
import { LosslessEngine } from "../src/lossless-engine.js";
import { modelCallCache, newestModelCall, sumModelCalls } from "../src/recorder/model-call-cache.js";
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
    const items = [
      { message: reply, createdAt: 3 },
      { message: userText("next", 4), createdAt: 4 },
    ];
    expect(newestModelCall(items)?.at).toBe(3);
    expect(newestModelCall([])).toBeUndefined();
  });

  it("shows what a compaction did to the cache: the call before it, the first call after it", async () => {
    const { engine } = await engineAtNow();
    const before = codingConversation(12, { toolOutputChars: 2_000 }).map((message, index) =>
      withUsage(message, { input: 40, cacheRead: 900 + index, cacheWrite: 60 }),
    );
    await engine.afterTurn({
      sessionId: "s",
      sessionFile: "memory:s",
      messages: before,
      prePromptMessageCount: 0,
    });
    const compacted = await engine.compact({ sessionId: "s", tokenBudget: 3_000, force: true });
    expect(compacted).toMatchObject({ ok: true, compacted: true });
    const lastReply = before.findLast((message) => message.role === "assistant") as AgentMessage;
    const pass = (await engine.inspect("s")).lastCompaction;
    expect(pass?.lastCallBefore).toEqual(
      modelCallCache(lastReply, (lastReply as { timestamp: number }).timestamp),
    );

    // A call sent while the pass ran (it lasted 250 ms) is not after it. The next turn, a second
    // after the pass ended: its first call missed, its second hit again.
    const turn = [
      userText("Meanwhile.", NOW + 50),
      withUsage(assistantText("Sent before the pass ended.", NOW + 100), {
        input: 10,
        cacheRead: 990,
        cacheWrite: 0,
      }),
      userText("Go on.", NOW + 1_000),
      withUsage(assistantText("Rebuilt the prefix.", NOW + 1_001), {
        input: 30,
        cacheRead: 0,
        cacheWrite: 1_970,
      }),
      userText("And now?", NOW + 2_000),
      withUsage(assistantText("Cached again.", NOW + 2_001), { input: 25, cacheRead: 1_970, cacheWrite: 5 }),
    ];
    await engine.afterTurn({
      sessionId: "s",
      sessionFile: "memory:s",
      messages: [...before, ...turn],
      prePromptMessageCount: before.length,
    });
    const report = await engine.inspect("s");
    expect(report.lastCompactionCache).toEqual({
      before: pass?.lastCallBefore,
      after: { at: NOW + 1_001, promptTokens: 2_000, cacheReadTokens: 0, cacheWriteTokens: 1_970 },
    });
    const calls = before.filter((message) => message.role === "assistant").length + 3;
    expect(report.providerCache).toMatchObject({ calls, callsMostlyMissed: 1 });
    expect(report.providerCache?.newest.at).toBe(NOW + 2_001);
    const lines = formatStatusLines(report, NOW + 3_000);
    const callBefore = pass?.lastCallBefore;
    const shareBefore = Math.round(
      ((callBefore?.cacheReadTokens ?? 0) / (callBefore?.promptTokens ?? 1)) * 100,
    );
    expect(shareBefore).toBe(90);
    expect(lines.find((line) => line.startsWith("Last compaction:"))).toContain(
      `provider cache ${shareBefore}% → 0%`,
    );
    expect(lines.find((line) => line.startsWith("Provider cache:"))).toMatch(
      new RegExp(
        `^Provider cache: \\d+% of [\\d,]+ prompt tokens read from cache over the last ${calls} model calls \\(1 call under half\\)$`,
      ),
    );
  });

  it("says nothing of the cache when no reply reported usage (a replay)", async () => {
    const { engine } = await engineAtNow();
    await engine.afterTurn({
      sessionId: "s",
      sessionFile: "memory:s",
      messages: codingConversation(12, { toolOutputChars: 2_000 }),
      prePromptMessageCount: 0,
    });
    await engine.compact({ sessionId: "s", tokenBudget: 3_000, force: true });
    const report = await engine.inspect("s");
    expect(report.lastCompaction?.lastCallBefore).toBeUndefined();
    expect(report.lastCompactionCache).toBeUndefined();
    expect(report.providerCache).toBeUndefined();
    const lines = formatStatusLines(report, NOW);
    expect(lines.join("\n")).not.toContain("cache");
  });
});
