/**
 * When compaction publishes upgrades (leaves the model wrote again in place of the extractive
 * summarizer's), worked out on hand-built views: never as a threshold compaction's only work
 * unless they take the view below the threshold, never inside a run whose condensation is
 * prepared, and reported apart from the leaves a pass made.
 */
import { describe, expect, it } from "vitest";
import { buildNode } from "../src/compaction/build-node.js";
import { type CompactViewRequest, compactView } from "../src/compaction/compact-view.js";
import { compactResultOf } from "../src/compaction/compaction-target.js";
import { chunkKeyOf } from "../src/compaction/leaf-chunk.js";
import { leafSupplyOf } from "../src/compaction/leaf-supply.js";
import { resolveOptions } from "../src/options.js";
import { chunksToPrepare, preparableUpgrades, staleJobs } from "../src/prepare/preparable-chunks.js";
import { type SourceReader, upgradeSources } from "../src/prepare/upgrade-sources.js";
import type { PreparedSummary, StoredMessage, StoredSummary, StoredSummaryJob } from "../src/store/store.js";
import type { ViewItem } from "../src/view/session-view.js";
import { StubSummarizer } from "./support/preparation.js";
import { raw, summary } from "./support/view-items.js";

const summarizer = new StubSummarizer("model");
const options = resolveOptions({ summarizer });
const settings = { ...options, counter: options.tokenCounter };

/**
 * Two extractive leaves before the fresh tail (a 2,000-token budget keeps its newest 500 tokens:
 * the two raw messages), 800 tokens in all: under a 1,000-token target, over its 750-token
 * threshold, and under the summary share, so nothing but an upgrade is there to do.
 */
const ITEMS: ViewItem[] = [summary(1), summary(2), raw(3), raw(4)];
const BUDGET = 2_000;
const TARGET = 1_000;
const THRESHOLD = 750;

/** A prepared node over `items`, its size in context set to `tokens`. */
async function prepared(items: ViewItem[], tokens: number, replaces?: ViewItem): Promise<PreparedSummary> {
  const node = await buildNode(settings, {
    sessionId: "s",
    items,
    maxTokens: 400,
    ...(replaces === undefined ? {} : { replaces }),
  });
  if (node === undefined) throw new Error("no node was built");
  return { summary: node.summary, edit: { ...node.edit, tokens } };
}

function jobOver(
  kind: StoredSummaryJob["kind"],
  items: ViewItem[],
  made?: PreparedSummary,
): StoredSummaryJob {
  return {
    chunkKey: chunkKeyOf(items),
    kind,
    firstPosition: (items[0] as ViewItem).position,
    lastPosition: (items.at(-1) as ViewItem).position,
    attempts: 1,
    ...(made === undefined ? {} : { prepared: made }),
  };
}

/** The upgrade of leaf 1: the model's leaf over message 1, `tokens` in context. */
async function upgradeOfFirstLeaf(tokens: number): Promise<StoredSummaryJob> {
  const leaf = ITEMS[0] as ViewItem;
  return jobOver("upgrade", [leaf], await prepared([raw(1)], tokens, leaf));
}

/** A forced compaction of `ITEMS` (as `maintain` runs it) with these jobs stored, at time 1,000. */
function compact(jobs: StoredSummaryJob[], request: Partial<CompactViewRequest> = {}) {
  return compactView(settings, {
    sessionId: "s",
    items: ITEMS,
    targetTokens: TARGET,
    budgetTokens: BUDGET,
    force: true,
    supply: leafSupplyOf(jobs, 1_000),
    ...request,
  });
}

describe("a threshold compaction whose only work is an upgrade", () => {
  it("writes nothing while the upgrade leaves the view above the threshold", async () => {
    const outcome = await compact([await upgradeOfFirstLeaf(180)], { liveLeavesAbove: THRESHOLD });
    expect(outcome.write.edits).toEqual([]);
    expect(outcome.write.settledJobs).toBeUndefined();
    expect(outcome.items).toEqual(ITEMS);
    expect(outcome.upgradedSummaries).toBe(0);
    expect(outcome.tokensAfter).toBe(800);
  });

  it("publishes it when it takes the view down to the threshold exactly", async () => {
    const outcome = await compact([await upgradeOfFirstLeaf(150)], { liveLeavesAbove: THRESHOLD });
    expect(outcome).toMatchObject({ tokensAfter: THRESHOLD, upgradedSummaries: 1 });
  });

  it("says the upgrades wait when it holds them back under the target", async () => {
    const outcome = await compact([await upgradeOfFirstLeaf(180)], { liveLeavesAbove: THRESHOLD });
    expect(outcome.reason).toBe("1 upgrade waits for a compaction with other work");
  });

  it("publishes it when it takes the view below the threshold", async () => {
    const job = await upgradeOfFirstLeaf(100);
    const outcome = await compact([job], { liveLeavesAbove: THRESHOLD });
    expect(outcome.write.edits.map((edit) => edit.summaryId)).toEqual([job.prepared?.summary.summaryId]);
    expect(outcome.write.settledJobs).toEqual([job.chunkKey]);
    expect(outcome).toMatchObject({
      tokensAfter: 700,
      upgradedSummaries: 1,
      leafNodes: 0,
      preparedSummaries: 0,
    });
  });
});

describe("a threshold compaction with an upgrade among other work", () => {
  /** Leaf 1, a closed chunk of three raw messages before the tail, two raw messages in it: 1,200 tokens. */
  const WITH_CHUNK: ViewItem[] = [summary(1), raw(2), raw(3), raw(4), raw(5), raw(6)];
  const withChunk = (jobs: StoredSummaryJob[], request: Partial<CompactViewRequest>) =>
    compact(jobs, { items: WITH_CHUNK, targetTokens: 1_500, ...request });

  it("publishes it with a prepared leaf, though the view stays above the threshold", async () => {
    const chunk = WITH_CHUNK.slice(1, 4);
    const leaf = jobOver("leaf", chunk, await prepared(chunk, 100));
    const outcome = await withChunk([await upgradeOfFirstLeaf(180), leaf], { liveLeavesAbove: 600 });
    expect(outcome).toMatchObject({
      tokensAfter: 680,
      upgradedSummaries: 1,
      leafNodes: 1,
      preparedSummaries: 1,
    });
  });

  it("holds it back when aborted before the other work was done", async () => {
    const controller = new AbortController();
    controller.abort(new Error("a new turn started"));
    const outcome = await withChunk([await upgradeOfFirstLeaf(180)], {
      liveLeavesAbove: 1_000,
      signal: controller.signal,
    });
    expect(outcome.aborted).toBeDefined();
    expect(outcome.write.edits).toEqual([]);
    expect(outcome.upgradedSummaries).toBe(0);
  });
});

describe("a compaction the host asked for, with only an upgrade to do", () => {
  it("publishes an upgrade of equal size and says the view is no smaller", async () => {
    const job = await upgradeOfFirstLeaf(200);
    const outcome = await compact([job]);
    expect(outcome.write.edits).toHaveLength(1);
    expect(outcome).toMatchObject({
      tokensBefore: 800,
      tokensAfter: 800,
      upgradedSummaries: 1,
      leafNodes: 0,
    });
    const result = compactResultOf(outcome, { budgetTokens: BUDGET, targetTokens: TARGET, source: "host" });
    expect(result).toMatchObject({ ok: true, compacted: false });
    expect(result.reason).toMatch(/^rewrote 1 summary with the model .* no smaller$/);
  });

  it("never swaps in an upgrade larger than the summary it replaces", async () => {
    const outcome = await compact([await upgradeOfFirstLeaf(201)]);
    expect(outcome.write.edits).toEqual([]);
    expect(outcome.upgradedSummaries).toBe(0);
  });
});

describe("an upgrade inside a run whose condensation is prepared", () => {
  it("waits: the prepared condensation is published as made, with no summarizer call", async () => {
    const run = ITEMS.slice(0, 2);
    const condensation = jobOver("condensed", run, await prepared(run, 150));
    const upgrade = await upgradeOfFirstLeaf(100);
    const calls = summarizer.calls.length;
    // Over a 700-token target: the run is condensed.
    const outcome = await compact([condensation, upgrade], { targetTokens: 700 });
    expect(summarizer.calls.length).toBe(calls);
    expect(outcome).toMatchObject({ upgradedSummaries: 0, condensedNodes: 1, preparedSummaries: 1 });
    expect(outcome.write.summaries.map((node) => node.summaryId)).toEqual([
      condensation.prepared?.summary.summaryId,
    ]);
  });

  it("waits while a worker holds the condensation's lease, and not once it expired", async () => {
    const run = ITEMS.slice(0, 2);
    const lease = (expiresAt: number) => ({
      ...jobOver("condensed", run),
      owner: "B",
      leaseExpiresAt: expiresAt,
    });
    const upgrade = await upgradeOfFirstLeaf(100);
    const held = await compact([lease(60_000), upgrade], { liveLeavesAbove: THRESHOLD });
    expect(held.upgradedSummaries).toBe(0);
    const expired = await compact([lease(999), upgrade], { liveLeavesAbove: THRESHOLD });
    expect(expired.upgradedSummaries).toBe(1);
  });
});

describe("upgrade jobs in preparation", () => {
  it("are not made for leaves inside the runs given as condensing", () => {
    const leaves = [summary(1), summary(2), summary(3), raw(4)];
    const positions = (except: Array<{ firstPosition: number; lastPosition: number }>) =>
      preparableUpgrades(leaves, except).map((job) => job.firstPosition);
    expect(positions([])).toEqual([1, 2, 3]);
    expect(positions([{ firstPosition: 2, lastPosition: 2 }])).toEqual([1, 3]);
    expect(positions([{ firstPosition: 1, lastPosition: 2 }])).toEqual([3]);
    expect(
      positions([
        { firstPosition: 3, lastPosition: 4 },
        { firstPosition: 1, lastPosition: 1 },
      ]),
    ).toEqual([2]);
  });

  it("are left out of a pass inside a run whose condensation is prepared, and after two attempts", async () => {
    const items = [summary(1), summary(2), summary(3), raw(4), raw(5)];
    const shape = { tailTokens: 500, condenseFanIn: 8, leafChunkTokens: 2_000, summaryLimit: 10_000 };
    const started = (jobs: StoredSummaryJob[], upgrades = true) =>
      chunksToPrepare(items, jobs, 0, { ...shape, upgrades }).map(
        (job) => `${job.kind} ${job.firstPosition}`,
      );
    expect(started([])).toEqual(["upgrade 1", "upgrade 2", "upgrade 3"]);
    expect(started([], false)).toEqual([]);
    const run = items.slice(0, 2);
    const condensation = jobOver("condensed", run, await prepared(run, 150));
    expect(started([condensation])).toEqual(["upgrade 3"]);
    const givenUp = { ...jobOver("upgrade", [items[2] as ViewItem]), attempts: 2 };
    expect(started([condensation, givenUp])).toEqual([]);
    expect(started([condensation, { ...givenUp, attempts: 1 }])).toEqual(["upgrade 3"]);
  });

  it("are left out of the condensation a pass prepares itself, and made for digests too", () => {
    const digest = {
      ...summary(4),
      summary: {
        ...(summary(4).summary as NonNullable<ViewItem["summary"]>),
        summarizer: "digest in place of model:test/stub",
      },
    };
    const items = [summary(1), summary(2), summary(3), digest, raw(5), raw(6)];
    // A summary the extractive summarizer wrote because it was the one configured is no candidate.
    const configured = {
      ...summary(7),
      summary: { ...(summary(7).summary as NonNullable<ViewItem["summary"]>), summarizer: "extractive" },
    };
    expect(preparableUpgrades([configured])).toEqual([]);
    const shape = {
      tailTokens: 500,
      condenseFanIn: 3,
      leafChunkTokens: 2_000,
      summaryLimit: 1_000,
      upgrades: true,
    };
    expect(chunksToPrepare(items, [], 0, shape).map((job) => `${job.kind} ${job.firstPosition}`)).toEqual([
      "condensed 1",
      "upgrade 4",
    ]);
  });

  it("go stale once their leaf left the view, unless a worker's lease on them runs", async () => {
    const job = await upgradeOfFirstLeaf(100);
    expect(staleJobs(ITEMS, 2_000, [job], 0)).toEqual([]);
    const condensed: ViewItem[] = [
      { ...summary(1, 1), ref: { kind: "summary", summaryId: "sum_condensed00001" } },
      raw(3),
      raw(4),
    ];
    expect(staleJobs(condensed, 2_000, [job], 0)).toEqual([job.chunkKey]);
    // Its leaf in a run whose condensation is prepared: compaction would never swap it in.
    const run = ITEMS.slice(0, 2);
    const condensation = jobOver("condensed", run, await prepared(run, 150));
    expect(staleJobs(ITEMS, 2_000, [job, condensation], 0)).toEqual([job.chunkKey]);
    const leased = { ...job, owner: "A", leaseExpiresAt: 10 };
    expect(staleJobs(condensed, 2_000, [leased], 5)).toEqual([]);
    expect(staleJobs(condensed, 2_000, [leased], 10)).toEqual([job.chunkKey]);
  });
});

describe("what an upgrade writes a summary again from", () => {
  const message = (seq: number): StoredMessage => ({
    seq,
    identity: `${seq}`.padStart(64, "0"),
    role: "user",
    createdAt: seq,
    tokens: 50,
    json: JSON.stringify({ role: "user", content: `message ${seq}`, timestamp: seq }),
  });
  const node = (
    summaryId: string,
    ranges: Array<[number, number]>,
    childIds: string[] = [],
  ): StoredSummary => ({
    summaryId,
    kind: childIds.length === 0 ? "leaf" : "condensed",
    depth: childIds.length === 0 ? 0 : 1,
    content: `text of ${summaryId}`,
    tokens: 80,
    sourceRanges: ranges,
    sourceCount: ranges.reduce((sum, [first, last]) => sum + last - first + 1, 0),
    sourceTokens: 100,
    childIds,
    anchors: [],
    earliestAt: ranges[0]?.[0] ?? 0,
    latestAt: ranges.at(-1)?.[1] ?? 0,
    summarizer: "extractive-merge",
    createdAt: 0,
    parentId: undefined,
  });
  /** A condensed node over two leaves (m1–m2, m5–m6) and the raw messages between them. */
  const summaries = [
    node("sum_leaf1", [[1, 2]]),
    node("sum_leaf2", [[5, 6]]),
    node("sum_top", [[1, 6]], ["sum_leaf1", "sum_leaf2"]),
  ];
  const reader = (stored: StoredSummary[]): SourceReader => ({
    readMessages: async (_session, seqs) => seqs.filter((seq) => seq <= 6).map(message),
    readSummaries: async (_session, ids) =>
      ids.flatMap((id) => stored.filter((summary) => summary.summaryId === id)),
  });
  const viewItem = (summary: StoredSummary): ViewItem => ({
    ...((summary.kind === "leaf" ? ITEMS[0] : ITEMS[1]) as ViewItem),
    position: 9,
    ref: { kind: "summary", summaryId: summary.summaryId },
    summary: {
      ...(ITEMS[0]?.summary as NonNullable<ViewItem["summary"]>),
      kind: summary.kind,
      sourceRanges: summary.sourceRanges,
    },
  });

  it("reads a condensed node's children and the messages it covered directly, in view order", async () => {
    const sources = await upgradeSources(reader(summaries), "s", viewItem(summaries[2] as StoredSummary));
    expect(
      sources.map((item) => (item.ref.kind === "message" ? `m${item.ref.seq}` : item.ref.summaryId)),
    ).toEqual(["sum_leaf1", "m3", "m4", "sum_leaf2"]);
    expect(sources.every((item) => item.position === 9)).toBe(true);
    expect(JSON.stringify(sources[0]?.message)).toContain('id=\\"sum_leaf1\\"');
    expect(sources[0]?.summary?.content).toBe("text of sum_leaf1");
  });

  it("reads a leaf's messages, and names what the store no longer holds", async () => {
    const leaf = await upgradeSources(reader(summaries), "s", viewItem(summaries[0] as StoredSummary));
    expect(leaf.map((item) => item.ref)).toEqual([
      { kind: "message", seq: 1 },
      { kind: "message", seq: 2 },
    ]);
    await expect(
      upgradeSources(reader(summaries.slice(1)), "s", viewItem(summaries[2] as StoredSummary)),
    ).rejects.toThrow("summary sum_top condenses 2 summaries; 1 are stored");
    await expect(upgradeSources(reader(summaries), "s", viewItem(node("sum_far", [[5, 8]])))).rejects.toThrow(
      "summary sum_far covers 4 messages; 2 are stored",
    );
  });
});
