import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { NearestRows } from "../src/embeddings/word-vectors/nearest-rows.js";

/**
 * The plain answer: every row at or above the bar but `skipRow`, nearest first, earlier rows first
 * among equals.
 */
function sortedNearest(
  similarities: readonly number[],
  from: number,
  bar: number,
  skipRow: number,
  count: number,
) {
  return similarities
    .map((similarity, index) => ({ row: from + index, similarity }))
    .filter(({ row, similarity }) => similarity >= bar && row !== skipRow)
    .sort((left, right) => right.similarity - left.similarity || left.row - right.row)
    .slice(0, count);
}

describe("nearest rows of a scan", () => {
  it("keeps the highest similarities from the bar up, nearest first, earlier rows first among equals", () => {
    const nearest = new NearestRows(3);
    const similarities = Float32Array.from([0.5, 0.9, 0.2, 0.9, 0.7, 0.5, 0.95]);
    expect(nearest.select(similarities, 10, 0.4, 16)).toEqual([
      { row: 11, similarity: Math.fround(0.9) },
      { row: 13, similarity: Math.fround(0.9) },
      { row: 14, similarity: Math.fround(0.7) },
    ]);
    // Reused: nothing of the first selection is left.
    expect(nearest.select([0.41, Number.NaN, 0.3], 0, 0.4, -1)).toEqual([{ row: 0, similarity: 0.41 }]);
  });

  it("answers what sorting every row would, for any similarities, bar and row left out", () => {
    const similarity = fc.oneof(
      fc.double({ min: -1, max: 1, noNaN: true }),
      fc.constantFrom(0.5, 0.5, Number.NaN),
    );
    fc.assert(
      fc.property(
        fc.array(similarity, { maxLength: 300 }),
        fc.integer({ min: 0, max: 50 }),
        fc.double({ min: -1, max: 1, noNaN: true }),
        fc.integer({ min: -1, max: 350 }),
        fc.integer({ min: 1, max: 60 }),
        (similarities, from, bar, skipRow, capacity) => {
          const nearest = new NearestRows(capacity);
          expect(nearest.select(similarities, from, bar, skipRow)).toEqual(
            sortedNearest(similarities, from, bar, skipRow, capacity),
          );
        },
      ),
      { numRuns: 300 },
    );
  });
});
