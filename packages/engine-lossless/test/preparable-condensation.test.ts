import { describe, expect, it } from "vitest";
import { preparableCondensation, staleJobs } from "../src/prepare/preparable-chunks.js";
import type { StoredSummaryJob } from "../src/store/store.js";
import { positionsOf, raw, summary } from "./support/view-items.js";

/** Fan-in 4; summaries of 200 tokens; preparing starts once they hold 500 (half of 1,000). */
const SHAPE = { condenseFanIn: 4, leafChunkTokens: 2_000, summaryLimit: 1_000 };
/** The tail: the newest 2 raw messages of 200 tokens. */
const TAIL_TOKENS = 400;

const tail = (from: number) => [raw(from), raw(from + 1)];

describe("which condensation is prepared", () => {
  it("prepares a full run of leaves, the run compaction will condense first", () => {
    const items = [summary(1), summary(2), summary(3), summary(4), summary(5), ...tail(6)];
    const chunk = preparableCondensation(items, TAIL_TOKENS, SHAPE);
    expect(chunk).toMatchObject({ kind: "condensed", firstPosition: 1, lastPosition: 4 });
    expect(positionsOf(chunk?.items)).toEqual([1, 2, 3, 4]);
  });

  it("prepares nothing the leaf phase could still change, or before the summaries fill half their share", () => {
    // A raw message before the run's end, large enough for a leaf, would become one first.
    const rawFirst = [{ ...raw(1), tokens: 400 }, summary(2), summary(3), summary(4), summary(5), ...tail(6)];
    expect(preparableCondensation(rawFirst, TAIL_TOKENS, SHAPE)).toBeUndefined();
    // A run short of the fan-in, followed by raw messages that will become leaves and join it.
    const short = [summary(1), summary(2), summary(3), raw(4), raw(5), ...tail(6)];
    expect(preparableCondensation(short, TAIL_TOKENS, SHAPE)).toBeUndefined();
    // Two summaries hold 400 tokens: under half of the share.
    expect(preparableCondensation([summary(1), summary(2), ...tail(3)], TAIL_TOKENS, SHAPE)).toBeUndefined();
  });

  it("is not kept from preparing by raw messages too few for a leaf, which only a condensation folds in", () => {
    // A session's first short prompt, left raw by every leaf phase (200 tokens, under 400), and
    // a short message between two summaries.
    const items = [raw(1), summary(2), summary(3), raw(4), summary(5), summary(6), ...tail(7)];
    const chunk = preparableCondensation(items, TAIL_TOKENS, SHAPE);
    expect(chunk).toMatchObject({ kind: "condensed", firstPosition: 1, lastPosition: 4 });
  });

  it("takes a deeper run's depth from its summaries, not from a raw message in it", () => {
    // 1–4 is a run of condensed nodes and a short raw message (too few tokens for a leaf).
    const withStraggler = [summary(1, 1), summary(2, 1), summary(3, 1), raw(4)];
    // Message 5 will become a leaf, which compaction condenses first (with 4): not prepared.
    const leafToCome = [...withStraggler, { ...raw(5), tokens: 1_900 }, ...tail(6)];
    expect(preparableCondensation(leafToCome, TAIL_TOKENS, SHAPE)).toBeUndefined();
    // With the straggler between summaries and no leaf to come, the run is prepared.
    const settledRun = [summary(1, 1), summary(2, 1), raw(3), summary(4, 1), summary(5, 1), ...tail(6)];
    expect(preparableCondensation(settledRun, TAIL_TOKENS, SHAPE)).toMatchObject({
      firstPosition: 1,
      lastPosition: 4,
    });
  });

  it("prepares a deeper run only when no raw message waits for the leaf phase", () => {
    const deep = [summary(1, 1), summary(2, 1), summary(3, 1), summary(4, 1)];
    expect(positionsOf(preparableCondensation([...deep, ...tail(5)], TAIL_TOKENS, SHAPE)?.items)).toEqual([
      1, 2, 3, 4,
    ]);
    expect(preparableCondensation([...deep, raw(5), raw(6), ...tail(7)], TAIL_TOKENS, SHAPE)).toBeUndefined();
  });

  it("keeps a condensed job while its run sits where it was, and drops it once the run changed", () => {
    const items = [summary(1), summary(2), summary(3), summary(4), summary(5), ...tail(6)];
    const chunk = preparableCondensation(items, TAIL_TOKENS, SHAPE);
    if (chunk === undefined) throw new Error("no condensation prepared");
    const job: StoredSummaryJob = {
      chunkKey: chunk.chunkKey,
      kind: "condensed",
      firstPosition: chunk.firstPosition,
      lastPosition: chunk.lastPosition,
      attempts: 1,
    };
    expect(staleJobs(items, SHAPE.leafChunkTokens, [job], 0)).toEqual([]);
    const replaced = [
      summary(1),
      { ...summary(2), ref: { kind: "summary" as const, summaryId: "sum_other" } },
    ];
    const changed = [...replaced, ...items.slice(2)];
    expect(staleJobs(changed, SHAPE.leafChunkTokens, [job], 0)).toEqual([chunk.chunkKey]);
  });
});
