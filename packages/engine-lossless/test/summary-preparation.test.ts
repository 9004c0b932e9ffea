import type { Summarizer } from "@clew/core";
import { afterEach, describe, expect, it } from "vitest";
import { buildNode } from "../src/compaction/build-node.js";
import { compactView } from "../src/compaction/compact-view.js";
import { leafCap } from "../src/compaction/leaf-chunk.js";
import { leafSupplyOf } from "../src/compaction/leaf-supply.js";
import { resolveOptions } from "../src/options.js";
import { preparableChunks } from "../src/prepare/preparable-chunks.js";
import type { ContextView, StoredSummaryJob } from "../src/store/store.js";
import { SessionView } from "../src/view/session-view.js";
import {
  maintainAndSettle,
  SMALL_CHUNKS,
  StubSummarizer,
  store,
  TempDatabases,
  turns,
} from "./support/preparation.js";

const databases = new TempDatabases();
afterEach(() => databases.cleanup());

function summaryItems(view: ContextView) {
  return view.items.flatMap((item) =>
    item.ref.kind === "summary" && item.summary !== undefined
      ? [{ summaryId: item.ref.summaryId, ...item.summary }]
      : [],
  );
}

/** The call number a stub summary was written by. */
function callOf(content: string): number {
  return Number(/call #(\d+)/.exec(content)?.[1] ?? Number.NaN);
}

/** A stub summarizer that reports one cent for each call, as a paid model summarizer does. */
function payingSummarizer(label: string): Summarizer {
  const inner = new StubSummarizer(label);
  return {
    id: inner.id,
    summarize: async (input) => {
      const text = await inner.summarize(input);
      input.onUsage?.({ inputTokens: 100, outputTokens: 10, costUsd: 0.01 });
      return text;
    },
  };
}

describe("summaries prepared before the threshold", () => {
  it("keep what making them cost, and the pass that publishes them adds it up", async () => {
    const { engine, store: db } = databases.open(await databases.path(), {
      ...SMALL_CHUNKS,
      summarizer: payingSummarizer("paid"),
    });
    const history = turns(160);
    for (let end = 4; end <= history.length; end += 4) {
      await store(engine, "s", history.slice(0, end));
      const prepared = (await db.listSummaryJobs("s")).filter((job) => job.prepared !== undefined).length;
      const before = (await db.readContextView("s")).version;
      await maintainAndSettle(engine, "s");
      if ((await db.readContextView("s")).version === before || prepared === 0) continue;
      const pass = (await engine.inspect("s")).lastCompaction;
      const summaries = await db.readSummaries("s", pass?.summaryIds ?? []);
      const paid = summaries.filter((summary) => summary.summarizer === "model:test/paid");
      expect(paid.length).toBeGreaterThan(0);
      for (const summary of paid) expect(summary.costUsd).toBe(0.01);
      expect(pass?.costUsd).toBeCloseTo(0.01 * paid.length, 10);
      return;
    }
    throw new Error("no compaction published prepared summaries");
  });

  it("are published at the threshold from what was prepared, in one view change per compaction", async () => {
    const summarizer = new StubSummarizer("prep");
    const { engine, store: db } = databases.open(await databases.path(), { ...SMALL_CHUNKS, summarizer });
    const history = turns(160);
    let compactions = 0;
    for (let end = 4; end <= history.length && compactions < 2; end += 4) {
      await store(engine, "s", history.slice(0, end));
      const before = await db.readContextView("s");
      const prepared = (await db.listSummaryJobs("s")).filter((job) => job.prepared !== undefined);
      const callsBefore = summarizer.calls.length;
      await maintainAndSettle(engine, "s");
      const after = await db.readContextView("s");
      if (after.version === before.version) continue;
      compactions += 1;
      expect(after.version).toBe(before.version + 1);
      const known = new Set(summaryItems(before).map((summary) => summary.summaryId));
      const published = summaryItems(after).filter((summary) => !known.has(summary.summaryId));
      expect(published.length).toBeGreaterThan(0);
      expect(published.length).toBeLessThanOrEqual(prepared.length);
      for (const summary of published) {
        expect(summary.kind).toBe("leaf");
        // Written by a call that ended before the threshold was reached.
        expect(callOf(summary.content)).toBeLessThan(callsBefore);
      }
      const left = new Set((await db.listSummaryJobs("s")).map((job) => job.chunkKey));
      const publishedIds = new Set(published.map((summary) => summary.summaryId));
      for (const job of prepared.filter((entry) => publishedIds.has(entry.prepared?.summary.summaryId ?? "")))
        expect(left.has(job.chunkKey)).toBe(false);
    }
    expect(compactions).toBe(2);
  });

  it("include the next condensation once summaries fill half their share, published without a call", async () => {
    const summarizer = new StubSummarizer("prep");
    const { engine, store: db } = databases.open(await databases.path(), { ...SMALL_CHUNKS, summarizer });
    const history = turns(600);
    for (let end = 4; end <= history.length; end += 4) {
      await store(engine, "s", history.slice(0, end));
      const before = await db.readContextView("s");
      const preparedCondensed = (await db.listSummaryJobs("s")).filter(
        (job) => job.kind === "condensed" && job.prepared !== undefined,
      );
      const callsBefore = summarizer.calls.length;
      await maintainAndSettle(engine, "s");
      const after = await db.readContextView("s");
      const known = new Set(summaryItems(before).map((summary) => summary.summaryId));
      const published = summaryItems(after).filter(
        (summary) => summary.kind === "condensed" && !known.has(summary.summaryId),
      );
      const fromPrepared = published.filter((summary) =>
        preparedCondensed.some((job) => job.prepared?.summary.summaryId === summary.summaryId),
      );
      if (fromPrepared.length === 0) continue;
      for (const summary of fromPrepared) {
        // Written before this maintenance ran: the compaction took it instead of calling.
        expect(callOf(summary.content)).toBeLessThan(callsBefore);
        expect(summary.depth).toBe(1);
      }
      const left = new Set((await db.listSummaryJobs("s")).map((job) => job.chunkKey));
      for (const job of preparedCondensed) expect(left.has(job.chunkKey)).toBe(false);
      return;
    }
    throw new Error("no compaction published a prepared condensed node");
  });

  it("are not made without preparation, so the threshold compaction then calls the summarizer", async () => {
    const summarizer = new StubSummarizer("live");
    const { engine, store: db } = databases.open(await databases.path(), {
      ...SMALL_CHUNKS,
      summarizer,
      prepareSummaries: false,
    });
    const history = turns(160);
    for (let end = 4; end <= history.length; end += 4) {
      await store(engine, "s", history.slice(0, end));
      const version = await db.viewVersion("s");
      await maintainAndSettle(engine, "s");
      if ((await db.viewVersion("s")) === version) {
        expect(summarizer.calls).toEqual([]);
        continue;
      }
      expect(summarizer.calls.length).toBeGreaterThan(0);
      expect(await db.listSummaryJobs("s")).toEqual([]);
      return;
    }
    throw new Error("the threshold was never reached");
  });

  it("are used by the host's compact, but not when it asks for a focus with custom instructions", async () => {
    for (const customInstructions of [undefined, "focus on the build"]) {
      const summarizer = new StubSummarizer("prep");
      const { engine, store: db } = databases.open(await databases.path(), { ...SMALL_CHUNKS, summarizer });
      await store(engine, "s", turns(60));
      await maintainAndSettle(engine, "s");
      const callsBefore = summarizer.calls.length;
      expect(callsBefore).toBeGreaterThan(0);
      const result = await engine.compact({
        sessionId: "s",
        tokenBudget: 8_000,
        force: true,
        ...(customInstructions === undefined ? {} : { customInstructions }),
      });
      const details = result.result?.details as { preparedSummaries: number };
      const leaves = summaryItems(await db.readContextView("s")).filter((summary) => summary.kind === "leaf");
      const fromPrepared = leaves.filter((summary) => callOf(summary.content) < callsBefore);
      if (customInstructions === undefined) {
        expect(details.preparedSummaries).toBe(callsBefore);
        expect(fromPrepared).toHaveLength(callsBefore);
      } else {
        expect(details.preparedSummaries).toBe(0);
        expect(fromPrepared).toEqual([]);
      }
    }
  });

  it("are discarded when the view changed under them, and never published for other messages", async () => {
    const path = await databases.path();
    const preparing = databases.open(path, {
      ...SMALL_CHUNKS,
      summarizer: new StubSummarizer("A"),
      workerId: "A",
    });
    await store(preparing.engine, "s", turns(40));
    await maintainAndSettle(preparing.engine, "s");
    const prepared = (await preparing.store.listSummaryJobs("s")).filter((job) => job.prepared !== undefined);
    expect(prepared.length).toBeGreaterThan(1);
    // Another gateway on the same database, chunking differently, compacts first.
    const other = databases.open(path, {
      leafChunkTokens: 700,
      summarizer: new StubSummarizer("B"),
      workerId: "B",
      prepareSummaries: false,
    });
    expect(await other.engine.compact({ sessionId: "s", tokenBudget: 8_000, force: true })).toMatchObject({
      compacted: true,
    });
    const byId = new Map(prepared.map((job) => [job.prepared?.summary.summaryId, job]));
    for (const summary of summaryItems(await other.store.readContextView("s"))) {
      if (!summary.content.includes("A call")) continue;
      // A prepared summary is only ever published over exactly the messages it was made for.
      expect(summary.sourceRanges).toEqual(byId.get(summary.summaryId)?.prepared?.summary.sourceRanges);
    }
    await maintainAndSettle(preparing.engine, "s");
    const keys = new Set(prepared.map((job) => job.chunkKey));
    expect((await preparing.store.listSummaryJobs("s")).filter((job) => keys.has(job.chunkKey))).toEqual([]);
  });
});

describe("compaction over prepared summaries", () => {
  async function preparedView() {
    const summarizer = new StubSummarizer("prep");
    const { engine, store: db } = databases.open(await databases.path(), { ...SMALL_CHUNKS, summarizer });
    await store(engine, "s", turns(40));
    await maintainAndSettle(engine, "s");
    const stored = await db.readContextView("s");
    return {
      view: SessionView.fromStored(stored.version, stored.items),
      jobs: await db.listSummaryJobs("s"),
    };
  }

  it("publishes them without a summarizer call, and settles their jobs in the same write", async () => {
    const { view, jobs } = await preparedView();
    const forbidden = new StubSummarizer("forbidden");
    const settings = {
      ...resolveOptions({ ...SMALL_CHUNKS, summarizer: forbidden }),
      counter: resolveOptions().tokenCounter,
    };
    const outcome = await compactView(settings, {
      sessionId: "s",
      items: view.items,
      targetTokens: 7_600,
      budgetTokens: 8_000,
      force: true,
      supply: leafSupplyOf(jobs, 0),
      liveLeavesAbove: 1,
    });
    expect(forbidden.calls).toEqual([]);
    expect(outcome.preparedSummaries).toBe(jobs.length);
    expect(outcome.write.settledJobs?.sort()).toEqual(jobs.map((job) => job.chunkKey).sort());
    expect(outcome.tokensAfter).toBeLessThan(outcome.tokensBefore);
  });

  it("never takes a prepared summary for items other than its own", async () => {
    const { view, jobs } = await preparedView();
    const chunks = preparableChunks(view.items, 2_000, 500);
    const [first, second] = chunks;
    const forged: StoredSummaryJob[] = jobs.map((job) =>
      job.chunkKey === second?.chunkKey
        ? { ...job, prepared: jobs.find((entry) => entry.chunkKey === first?.chunkKey)?.prepared }
        : job,
    );
    const supply = leafSupplyOf(forged, 0);
    expect(supply.prepared(first?.items ?? [])).toBeDefined();
    expect(supply.prepared(second?.items ?? [])).toBeUndefined();
    expect(supply.prepared(first?.items.slice(1) ?? [])).toBeUndefined();
  });

  it("makes the same leaf as compaction would, so the prepared one can stand in for it", async () => {
    const { view, jobs } = await preparedView();
    const [chunk] = preparableChunks(view.items, 2_000, 500);
    const options = resolveOptions({ ...SMALL_CHUNKS, summarizer: new StubSummarizer("prep") });
    const live = await buildNode(
      { ...options, counter: options.tokenCounter },
      {
        sessionId: "s",
        items: chunk?.items ?? [],
        maxTokens: leafCap(options.leafTargetTokens, chunk?.tokens ?? 0),
      },
    );
    const prepared = jobs.find((job) => job.chunkKey === chunk?.chunkKey)?.prepared;
    expect(prepared?.summary.summaryId).toBe(live?.summary.summaryId);
    expect(prepared?.edit.replace).toEqual(live?.edit.replace);
    expect(prepared?.summary.sourceRanges).toEqual(live?.summary.sourceRanges);
  });
});
