import type { SummarizeInput, Summarizer } from "@clew/core";
import { afterEach, describe, expect, it } from "vitest";
import { openSqliteStore, type SqliteLosslessStore } from "../src/store/sqlite/sqlite-store.js";
import type { StoredContextItem } from "../src/store/store.js";
import {
  assistantText,
  assistantToolCall,
  fillerText,
  toolResult,
  userText,
} from "./support/conversations.js";
import {
  maintainAndSettle,
  SMALL_CHUNKS,
  StubSummarizer,
  store,
  TempDatabases,
  TestClock,
  turns,
} from "./support/preparation.js";

const databases = new TempDatabases();
afterEach(() => databases.cleanup());

const HOUR_MS = 3_600_000;

/** Leaves the extractive summarizer wrote in the model's place (see `writerId`). */
async function standInLeaves(db: SqliteLosslessStore): Promise<StoredContextItem[]> {
  const view = await db.readContextView("s");
  return view.items.filter(
    (item) =>
      item.summary?.kind === "leaf" && item.summary.summarizer.startsWith("extractive in place of model:"),
  );
}

async function upgradeJobs(db: SqliteLosslessStore) {
  return (await db.listSummaryJobs("s")).filter((job) => job.kind === "upgrade");
}

/** Counts the store's spend reservations from now on (each is a write transaction). */
function countReservations(db: SqliteLosslessStore): { count: number } {
  const asks = { count: 0 };
  const reserve = db.reserveSummarySpend.bind(db);
  db.reserveSummarySpend = (sessionId, reservation) => {
    asks.count += 1;
    return reserve(sessionId, reservation);
  };
  return asks;
}

function untilAborted(signal: AbortSignal | undefined): Promise<never> {
  if (signal === undefined) throw new Error("a summarizer call without a signal");
  return new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    signal.addEventListener("abort", () => reject(signal.reason), { once: true });
  });
}

/** A model that throws while `failing` is set. */
class FlakySummarizer implements Summarizer {
  readonly id = "model:test/flaky";
  failing = true;
  calls = 0;
  private readonly inner = new StubSummarizer("flaky");

  /** Set: calls wait until their signal fires, then throw its reason. */
  hanging = false;

  readonly inputs: SummarizeInput[] = [];

  async summarize(input: SummarizeInput): Promise<string> {
    this.calls += 1;
    this.inputs.push(input);
    if (this.hanging) return untilAborted(input.signal);
    if (this.failing) throw new Error("provider unavailable");
    return this.inner.summarize(input);
  }
}

describe("upgrading leaves the extractive summarizer wrote in the model's place", () => {
  it("repays a spent budget's debt once the window frees up, at the next compaction's boundary", async () => {
    const clock = new TestClock();
    const summarizer = new StubSummarizer("paid");
    const { engine, store: db } = databases.open(await databases.path(), {
      ...SMALL_CHUNKS,
      summarizer,
      now: clock.now,
      prepareSummaries: true,
      summarySpendTokensPerSession: 1_500,
      summarySpendWindowHours: 1,
      summarizerConcurrency: 1,
    });
    await store(engine, "s", turns(60));
    await engine.compact({ sessionId: "s", tokenBudget: 8_000, force: true });
    const written = await standInLeaves(db);
    expect(written.length).toBeGreaterThan(0);

    // While the budget has no room, passes claim nothing and record no more debt. The first
    // refusal ends the pass's upgrades, and the next passes ask nothing for ten minutes.
    expect(written.length).toBeGreaterThan(1);
    const asks = countReservations(db);
    const debt = (await engine.spendReport("s")).window.debtTokens;
    await maintainAndSettle(engine, "s");
    expect(asks.count).toBe(1);
    await maintainAndSettle(engine, "s");
    expect(asks.count).toBe(1);
    clock.value += 10 * 60_000;
    await maintainAndSettle(engine, "s");
    expect(asks.count).toBe(2);
    expect(await upgradeJobs(db)).toEqual([]);
    expect((await engine.spendReport("s")).window.debtTokens).toBe(debt);

    clock.value += HOUR_MS;
    const callsBefore = summarizer.calls.length;
    await maintainAndSettle(engine, "s");
    const jobs = await upgradeJobs(db);
    expect(jobs.length).toBeGreaterThan(0);
    expect(summarizer.calls.length - callsBefore).toBeGreaterThanOrEqual(jobs.length);
    const byPosition = new Map(written.map((item) => [item.position, item]));
    for (const job of jobs) {
      const leaf = byPosition.get(job.firstPosition);
      const upgrade = job.prepared?.summary;
      expect(leaf?.summary).toBeDefined();
      expect(upgrade).toMatchObject({ kind: "leaf", summarizer: summarizer.id });
      expect(upgrade?.sourceRanges).toEqual(leaf?.summary?.sourceRanges);
      expect(upgrade?.summaryId).not.toBe(leaf?.ref.kind === "summary" ? leaf.ref.summaryId : "");
      expect(upgrade?.tokens).toBeLessThanOrEqual(leaf?.tokens ?? 0);
    }

    // The next compaction publishes them in the leaves' places; the old leaves stay stored.
    const result = await engine.compact({ sessionId: "s", tokenBudget: 8_000, force: true });
    expect(result.ok).toBe(true);
    const view = await db.readContextView("s");
    const upgradedIds = jobs.map((job) => job.prepared?.summary.summaryId);
    const inView = new Set(view.items.map((item) => (item.ref.kind === "summary" ? item.ref.summaryId : "")));
    for (const id of upgradedIds) expect(inView.has(id ?? "")).toBe(true);
    const replaced = jobs.map((job) => byPosition.get(job.firstPosition)?.ref);
    const oldIds = replaced.map((ref) => (ref?.kind === "summary" ? ref.summaryId : ""));
    for (const id of oldIds) expect(inView.has(id)).toBe(false);
    expect(await db.readSummaries("s", oldIds)).toHaveLength(oldIds.length);
    expect(await upgradeJobs(db)).toEqual([]);
    const details = result.result?.details as {
      leafSummaries: number;
      condensedSummaries: number;
      upgradedSummaries: number;
      summaryIds: string[];
    };
    expect(details.upgradedSummaries).toBe(jobs.length);
    // Upgrades are counted apart from the leaves and condensed nodes the pass wrote.
    const { leafSummaries, condensedSummaries, upgradedSummaries } = details;
    expect(leafSummaries + condensedSummaries + upgradedSummaries).toBe(details.summaryIds.length);
    const [pass] = await db.listCompactionPasses({ sessionId: "s", limit: 1 });
    expect(pass?.outputs).toMatchObject({ leaf: leafSummaries, upgraded: jobs.length });
  });

  it("writes a condensed node the extractive merge wrote again from its children", async () => {
    const summarizer = new FlakySummarizer();
    const { engine, store: db } = databases.open(await databases.path(), {
      ...SMALL_CHUNKS,
      summarizer,
      summarizerConcurrency: 1,
    });
    await store(engine, "s", turns(120));
    await engine.compact({ sessionId: "s", tokenBudget: 4_000, force: true });
    const merged = (await db.readContextView("s")).items.filter(
      (item) =>
        item.summary?.kind === "condensed" &&
        item.summary.summarizer === `extractive-merge in place of ${summarizer.id}`,
    );
    expect(merged.length).toBeGreaterThan(0);
    const mergedIds = merged.map((item) => (item.ref.kind === "summary" ? item.ref.summaryId : ""));
    const stored = new Map((await db.readSummaries("s", mergedIds)).map((node) => [node.summaryId, node]));

    summarizer.failing = false;
    await maintainAndSettle(engine, "s");
    const jobs = await upgradeJobs(db);
    for (const item of merged) {
      const old = stored.get(item.ref.kind === "summary" ? item.ref.summaryId : "");
      const upgrade = jobs.find((job) => job.firstPosition === item.position)?.prepared?.summary;
      expect(upgrade).toMatchObject({
        kind: "condensed",
        summarizer: summarizer.id,
        depth: old?.depth,
        sourceRanges: old?.sourceRanges,
        childIds: old?.childIds,
      });
      expect(upgrade?.tokens).toBeLessThanOrEqual(item.tokens);
      // The model was given the children as the view showed them.
      const asked = summarizer.inputs.find((input) =>
        input.messages.some((message) => JSON.stringify(message).includes(old?.childIds[0] ?? "?")),
      );
      expect(asked).toBeDefined();
    }

    const result = await engine.compact({ sessionId: "s", tokenBudget: 4_000, force: true });
    const details = result.result?.details as { upgradedSummaries: number };
    expect(details.upgradedSummaries).toBeGreaterThanOrEqual(merged.length);
    const inView = new Set(
      (await db.readContextView("s")).items.map((item) =>
        item.ref.kind === "summary" ? item.ref.summaryId : "",
      ),
    );
    for (const id of mergedIds) expect(inView.has(id)).toBe(false);
    expect(await db.readSummaries("s", mergedIds)).toHaveLength(mergedIds.length);
    // The children now name the rewrite as their parent.
    for (const item of merged) {
      const old = stored.get(item.ref.kind === "summary" ? item.ref.summaryId : "");
      const upgradeId = jobs.find((job) => job.firstPosition === item.position)?.prepared?.summary.summaryId;
      const children = await db.readSummaries("s", old?.childIds ?? []);
      expect(children.map((child) => child.parentId)).toEqual(children.map(() => upgradeId));
    }
  });

  it("skips an upgrade larger than the whole budget without holding back the others", async () => {
    const clock = new TestClock();
    const summarizer = new FlakySummarizer();
    const { engine, store: db } = databases.open(await databases.path(), {
      leafChunkTokens: 2_000,
      defaultTokenBudget: 16_000,
      summarizer,
      now: clock.now,
      summarySpendTokensPerSession: 3_000,
      summarySpendWindowHours: 1,
      summarizerConcurrency: 1,
    });
    // The oldest leaf covers one 3,500-token output: its upgrade could never fit 3,000 tokens.
    const big = [
      userText("Read the relay config.", 1),
      assistantToolCall("call_1", "read", { path: "relay.conf" }, 2),
      toolResult("call_1", "read", fillerText(14_000, 7), 3),
      assistantText("Read it.", 4),
    ];
    await store(engine, "s", [...big, ...turns(90)]);
    await engine.compact({ sessionId: "s", tokenBudget: 16_000, force: true });
    const written = await standInLeaves(db);
    expect(written.length).toBeGreaterThan(1);
    expect(written[0]?.summary?.sourceTokens).toBeGreaterThan(3_000);

    summarizer.failing = false;
    clock.value += HOUR_MS;
    await maintainAndSettle(engine, "s");
    const jobs = await upgradeJobs(db);
    expect(jobs.some((job) => job.prepared !== undefined)).toBe(true);
    expect(jobs.some((job) => job.firstPosition === written[0]?.position)).toBe(false);
  });

  it("retries a model that failed, and gives an upgrade up after two failed attempts", async () => {
    const summarizer = new FlakySummarizer();
    const { engine, store: db } = databases.open(await databases.path(), {
      ...SMALL_CHUNKS,
      summarizer,
      summarizerConcurrency: 1,
    });
    await store(engine, "s", turns(60));
    await engine.compact({ sessionId: "s", tokenBudget: 8_000, force: true });
    const written = await standInLeaves(db);
    expect(written.length).toBeGreaterThan(0);

    const callsPerPass: number[] = [];
    for (let pass = 0; pass < 3; pass++) {
      const before = summarizer.calls;
      await maintainAndSettle(engine, "s");
      callsPerPass.push(summarizer.calls - before);
    }
    const jobs = await upgradeJobs(db);
    expect(jobs.length).toBeGreaterThan(0);
    expect(jobs.every((job) => job.prepared === undefined && job.attempts === 2)).toBe(true);
    // The third pass tries no upgrade again (a pass may still prepare a leaf or a condensation).
    expect(callsPerPass[2]).toBeLessThan(callsPerPass[0] ?? 0);
    expect(callsPerPass[0]).toBeGreaterThanOrEqual(jobs.length);

    // A model that answers again does not retry the upgrades given up.
    summarizer.failing = false;
    await maintainAndSettle(engine, "s");
    expect((await upgradeJobs(db)).every((job) => job.prepared === undefined)).toBe(true);
  });

  it("never asks the ledger for an upgrade larger than the whole budget", async () => {
    const { engine, store: db } = databases.open(await databases.path(), {
      ...SMALL_CHUNKS,
      summarizer: new StubSummarizer("unaffordable"),
      summarySpendTokensPerSession: 0,
    });
    await store(engine, "s", turns(60));
    await engine.compact({ sessionId: "s", tokenBudget: 8_000, force: true });
    expect((await standInLeaves(db)).length).toBeGreaterThan(0);
    const asks = countReservations(db);
    await maintainAndSettle(engine, "s");
    expect(asks.count).toBe(0);
    expect(await upgradeJobs(db)).toEqual([]);
  });

  it("does not count an upgrade cancelled by dispose among its attempts", async () => {
    const summarizer = new FlakySummarizer();
    const path = await databases.path();
    const { engine, store: db } = databases.open(path, {
      ...SMALL_CHUNKS,
      summarizer,
      summarizerConcurrency: 1,
    });
    await store(engine, "s", turns(60));
    await engine.compact({ sessionId: "s", tokenBudget: 8_000, force: true });
    expect((await standInLeaves(db)).length).toBeGreaterThan(0);

    summarizer.hanging = true;
    const calls = summarizer.calls;
    await engine.maintain({ sessionId: "s", sessionFile: "memory:s" });
    while (summarizer.calls === calls) await new Promise((resolve) => setTimeout(resolve, 5));
    expect((await upgradeJobs(db)).map((job) => job.attempts)).toContain(1);
    await engine.dispose();

    const reopened = openSqliteStore(path);
    const jobs = (await reopened.listSummaryJobs("s")).filter((job) => job.kind === "upgrade");
    await reopened.close();
    expect(jobs.length).toBeGreaterThan(0);
    expect(
      jobs.every((job) => job.attempts === 0 && job.owner === undefined && job.prepared === undefined),
    ).toBe(true);
  });

  it("leaves summaries written while the extractive summarizer was configured to it, once a model is", async () => {
    const path = await databases.path();
    const first = databases.open(path, SMALL_CHUNKS);
    await store(first.engine, "s", turns(120));
    await first.engine.compact({ sessionId: "s", tokenBudget: 4_000, force: true });
    const view = await first.store.readContextView("s");
    const writers = view.items.flatMap((item) =>
      item.summary === undefined ? [] : [item.summary.summarizer],
    );
    expect(writers.length).toBeGreaterThan(0);
    expect(new Set(writers)).toEqual(new Set(writers.filter((writer) => writer.startsWith("extractive"))));
    expect(writers.some((writer) => writer.includes(" in place of "))).toBe(false);
    await first.engine.dispose();

    const summarizer = new StubSummarizer("later");
    const { engine, store: db } = databases.open(path, { ...SMALL_CHUNKS, summarizer });
    await maintainAndSettle(engine, "s");
    expect(await upgradeJobs(db)).toEqual([]);
    expect(summarizer.calls).toEqual([]);
  });

  it("leaves a model's own leaves, and an extractive engine's, as they are", async () => {
    for (const summarizer of [new StubSummarizer("good"), undefined]) {
      const { engine, store: db } = databases.open(await databases.path(), {
        ...SMALL_CHUNKS,
        ...(summarizer === undefined ? {} : { summarizer }),
      });
      await store(engine, "s", turns(60));
      await engine.compact({ sessionId: "s", tokenBudget: 8_000, force: true });
      expect((await db.readContextView("s")).items.some((item) => item.summary?.kind === "leaf")).toBe(true);
      await maintainAndSettle(engine, "s");
      expect(await upgradeJobs(db)).toEqual([]);
    }
  });
});
