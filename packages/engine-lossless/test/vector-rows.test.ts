import { describe, expect, it } from "vitest";
import { compileSimilarityScan } from "../scripts/build-similarity-wasm.js";
import {
  createVectorRows,
  SIMILARITY_SCAN_WASM,
  type VectorRows,
} from "../src/embeddings/vector-rows/vector-rows.js";

/** A deterministic unit vector of `dimensions` from `seed`. */
function unitVector(seed: number, dimensions: number): Float32Array {
  const vector = new Float32Array(dimensions);
  let state = seed * 2_654_435_761;
  for (let index = 0; index < dimensions; index++) {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    vector[index] = state / 1_073_741_824 - 1;
  }
  const norm = Math.hypot(...vector);
  return vector.map((value) => value / norm);
}

function exactDot(left: Float32Array, right: Float32Array): number {
  let sum = 0;
  for (let index = 0; index < left.length; index++) sum += (left[index] ?? 0) * (right[index] ?? 0);
  return sum;
}

describe("vector rows", () => {
  it("embeds the module its WebAssembly source compiles to", async () => {
    expect(await compileSimilarityScan()).toBe(SIMILARITY_SCAN_WASM);
  });

  it("runs the WebAssembly scan on this runtime", () => {
    expect(createVectorRows(100).kind).toBe("wasm");
    expect(createVectorRows(100, "js").kind).toBe("js");
  });

  // 5 and 25 dimensions are not a multiple of the scan's four lanes; 3,000 rows outgrow the first
  // allocation (1,024 rows) twice, so rows appended before and after a growth are both read.
  for (const dimensions of [5, 25, 100]) {
    it(`answers the exact dot products at ${dimensions} dimensions, both ways, across growth`, () => {
      const vectors = Array.from({ length: 3_000 }, (_, index) => unitVector(index + 1, dimensions));
      const implementations: VectorRows[] = [
        createVectorRows(dimensions),
        createVectorRows(dimensions, "js"),
      ];
      for (const rows of implementations) {
        for (const vector of vectors) rows.append(vector);
        expect(rows.count).toBe(3_000);
        const query = unitVector(9_999, dimensions);
        const all = [...rows.dots(query, 0, rows.count)];
        expect(all).toHaveLength(3_000);
        for (const [row, value] of all.entries())
          expect(value).toBeCloseTo(exactDot(query, vectors[row] as Float32Array), 5);
        // A window is the same numbers; a window past the end is cut at the end.
        expect([...rows.dots(query, 1_020, 1_030)]).toEqual(all.slice(1_020, 1_030));
        expect([...rows.dots(query, 2_990, 5_000)]).toEqual(all.slice(2_990));
        expect(rows.dots(query, 10, 10)).toHaveLength(0);
        // A vector's product with itself is 1.
        expect(rows.dots(vectors[1_500] as Float32Array, 1_500, 1_501)[0]).toBeCloseTo(1, 5);
      }
    });
  }

  it("reads only a vector's own dimensions, whatever the query's padding held before", () => {
    const rows = createVectorRows(5);
    rows.append(unitVector(1, 5));
    const long = new Float32Array(8).fill(9);
    long.set(unitVector(2, 5));
    const first = rows.dots(long, 0, 1)[0];
    expect(rows.dots(unitVector(2, 5), 0, 1)[0]).toBe(first);
  });
});
