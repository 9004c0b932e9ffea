import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Summarizer } from "@clew/core";
import { afterEach, describe, expect, it } from "vitest";
import { LosslessEngine } from "../src/lossless-engine.js";
import type { LosslessEngineOptions } from "../src/options.js";
import { openSqliteStore } from "../src/store/sqlite/sqlite-store.js";
import type { LosslessStore } from "../src/store/store.js";
import { codingConversation, longConversation } from "./support/conversations.js";
import { paidSummarizer } from "./support/paid-summarizer.js";
import { store as stored } from "./support/preparation.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** An engine with its store in reach, over a temp database. */
async function engineWithStore(
  options: LosslessEngineOptions = {},
  wrap?: (store: LosslessStore) => LosslessStore,
) {
  const directory = await mkdtemp(join(tmpdir(), "clew-lossless-recorder-"));
  cleanups.push(() => rm(directory, { recursive: true, force: true }));
  const store = openSqliteStore(join(directory, "lossless.db"));
  const engine = new LosslessEngine(wrap === undefined ? store : wrap(store), options);
  cleanups.push(() => engine.dispose());
  return { engine, store };
}

describe("compaction pass records", () => {
  it("records a forced pass with the tokens, summary ids and inputs of its result", async () => {
    const { engine, store } = await engineWithStore();
    await stored(engine, "s", longConversation(30));
    const result = await engine.compact({ sessionId: "s", tokenBudget: 4_000, force: true });
    expect(result).toMatchObject({ ok: true, compacted: true });
    const report = await engine.inspect("s");
    const pass = report.lastCompaction;
    expect(pass).toMatchObject({
      sessionId: "s",
      trigger: "force",
      outcome: "compacted",
      summarizer: "extractive",
      tokensBefore: result.result?.tokensBefore,
      tokensAfter: result.result?.tokensAfter,
      summaryIds: (result.result?.details as { summaryIds: string[] } | undefined)?.summaryIds,
      viewVersionBefore: 1,
      viewVersionAfter: 2,
    });
    expect(["leaf", "condensed", "root"]).toContain(pass?.level);
    expect(pass?.passId).toMatch(/^pass_[0-9a-f]{16}$/);
    expect(pass?.inputs.messages).toBeGreaterThan(0);
    expect(pass?.inputs.tokens).toBeGreaterThan(pass?.outputs.tokens ?? 0);
    expect(pass?.outputs.leaf).toBeGreaterThan(0);
    expect(await store.readCompactionPass(pass?.passId ?? "")).toEqual(pass);
    const removed = (result.result?.tokensBefore ?? 0) - (result.result?.tokensAfter ?? 0);
    expect(report.session).toMatchObject({ compactionPasses: 1, tokensRemovedTotal: removed });
    expect(report.session.summaryCount).toBe(pass?.summaryIds.length);
    expect(report.session.deepestChain).toBe(report.session.deepestSummaryDepth + 1);
  });

  it("records a pass that had nothing to do as unchanged, without counting it", async () => {
    const { engine } = await engineWithStore();
    await stored(engine, "s", codingConversation(3));
    await engine.compact({ sessionId: "s", tokenBudget: 100_000 });
    const report = await engine.inspect("s");
    expect(report.lastCompaction).toMatchObject({
      trigger: "compact",
      outcome: "unchanged",
      level: "none",
      summaryIds: [],
    });
    expect(report.session.compactionPasses).toBe(0);
  });

  it("marks a pass whose summarizer failed as a fallback, naming who wrote the summaries", async () => {
    const failing: Summarizer = {
      id: "model:test/failing",
      summarize: async () => {
        throw new Error("provider down");
      },
    };
    const { engine } = await engineWithStore({ summarizer: failing });
    await stored(engine, "s", longConversation(30));
    await engine.compact({ sessionId: "s", tokenBudget: 4_000, force: true });
    const pass = (await engine.inspect("s")).lastCompaction;
    expect(pass).toMatchObject({ level: "fallback", summarizer: "model:test/failing" });
    expect(pass?.writtenBy).toContain("extractive in place of model:test/failing");
  });

  it("records what the summarizer reported the pass's summaries cost, and no cost when it reports none", async () => {
    const paid = paidSummarizer("model:test/paid", "## Goal\n- keep going", 0.002);
    const { engine, store } = await engineWithStore({ summarizer: paid, prepareSummaries: false });
    await stored(engine, "s", longConversation(30));
    await engine.compact({ sessionId: "s", tokenBudget: 4_000, force: true });
    const pass = (await engine.inspect("s")).lastCompaction;
    const summaries = await store.readSummaries("s", pass?.summaryIds ?? []);
    const byModel = summaries.filter((summary) => summary.summarizer === paid.id);
    expect(byModel.length).toBeGreaterThan(0);
    expect(pass?.costUsd).toBeCloseTo(0.002 * byModel.length, 10);

    const { engine: free } = await engineWithStore({ prepareSummaries: false });
    await stored(free, "s", longConversation(30));
    await free.compact({ sessionId: "s", tokenBudget: 4_000, force: true });
    expect((await free.inspect("s")).lastCompaction).not.toHaveProperty("costUsd");
  });

  it("names background maintenance as the trigger", async () => {
    const { engine } = await engineWithStore();
    const messages = longConversation(40);
    await engine.assemble({ sessionId: "s", messages: [], tokenBudget: 8_000 });
    await stored(engine, "s", messages);
    await engine.maintain({ sessionId: "s", sessionFile: "memory:s" });
    expect((await engine.inspect("s")).lastCompaction).toMatchObject({ trigger: "maintain" });
  });
});

describe("assembly records", () => {
  it("records assemblies by kind, evictions and prefix stability, keeping the newest N", async () => {
    const { engine, store } = await engineWithStore({ assemblyRecordsKept: 3 });
    const messages = longConversation(30);
    await stored(engine, "s", messages);
    await engine.assemble({ sessionId: "s", messages, tokenBudget: 200_000 });
    await engine.assemble({ sessionId: "s", messages, tokenBudget: 200_000 });
    await engine.compact({ sessionId: "s", tokenBudget: 8_000, force: true });
    const compacted = await engine.assemble({ sessionId: "s", messages, tokenBudget: 8_000 });
    await engine.assemble({ sessionId: "s", messages, tokenBudget: 2_000 });
    const report = await engine.inspect("s");
    const records = await store.listAssemblies("s", 10);
    expect(records).toHaveLength(3);
    expect(records.map((record) => record.prefixStable)).toEqual([false, false, true]);
    const [squeezed, afterCompaction] = records;
    expect(report.lastAssembly).toEqual(squeezed);
    expect(afterCompaction?.items.summary).toBeGreaterThan(0);
    expect(afterCompaction?.tokens).toBe(compacted.estimatedTokens);
    const byKind = afterCompaction?.tokensByKind;
    expect((byKind?.raw ?? 0) + (byKind?.summary ?? 0) + (byKind?.other ?? 0)).toBe(afterCompaction?.tokens);
    expect(squeezed?.evicted.items).toBeGreaterThan(0);
    expect(squeezed?.evicted.first).toMatch(/^(m\d+|sum_[0-9a-f]+)$/);
    expect(squeezed?.items.other).toBeGreaterThanOrEqual(1);
  });

  it("never fails assemble or compact when the recorder cannot write", async () => {
    const broken = (store: LosslessStore): LosslessStore =>
      new Proxy(store, {
        get(target, property) {
          if (property === "recordAssemblies" || property === "recordCompactionPass") {
            return async () => {
              throw new Error("disk full");
            };
          }
          const value = Reflect.get(target, property, target);
          return typeof value === "function" ? value.bind(target) : value;
        },
      });
    const { engine } = await engineWithStore({}, broken);
    const messages = longConversation(30);
    await stored(engine, "s", messages);
    const assembled = await engine.assemble({ sessionId: "s", messages, tokenBudget: 100_000 });
    expect(assembled.promptAuthority).toBe("assembled");
    expect(await engine.compact({ sessionId: "s", tokenBudget: 4_000, force: true })).toMatchObject({
      ok: true,
      compacted: true,
    });
    const report = await engine.inspect("s");
    expect(report.store.available).toBe(true);
    expect(report.lastCompaction).toBeUndefined();
    expect(report.lastAssembly).toBeUndefined();
  });
});

describe("inspect", () => {
  it("answers zeros for an unknown session and says why when there is no store", async () => {
    const { engine } = await engineWithStore();
    const unknown = await engine.inspect("nobody");
    expect(unknown.store).toMatchObject({ kind: "sqlite", available: true });
    expect(unknown.store.bytesOnDisk).toBeGreaterThan(0);
    expect(unknown.session).toMatchObject({ messageCount: 0, deepestChain: 0, viewVersion: 0 });
    const failed = new LosslessEngine(undefined, {}, "cannot open /x/lossless.db");
    expect(await failed.inspect("s")).toMatchObject({
      store: { available: false, failure: "cannot open /x/lossless.db", bytesOnDisk: 0 },
      session: { messageCount: 0 },
    });
  });
});
