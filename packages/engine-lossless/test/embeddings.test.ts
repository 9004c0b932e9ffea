import { mkdtemp, readdir, rm, stat, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EmbedderError, embedChecked, type TextEmbedder } from "../src/embeddings/text-embedder.js";
import {
  loadWordVectorTable,
  WordVectorFileError,
} from "../src/embeddings/word-vectors/word-vector-table.js";
import { TINY_VECTORS, tinyVectorsText, writeTinyVectors } from "./support/word-vectors.js";

let directory: string;
beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), "clew-vectors-"));
});
afterAll(() => rm(directory, { recursive: true, force: true }));

describe("embedChecked", () => {
  const fixed = (vectors: Float32Array[], dimensions = 2): TextEmbedder => ({
    id: "fixed",
    dimensions,
    embed: async () => vectors,
  });

  it("scales vectors to unit length and keeps a zero vector zero", async () => {
    const [scaled, zero] = await embedChecked(fixed([Float32Array.of(3, 4), Float32Array.of(0, 0)]), [
      "a",
      "b",
    ]);
    expect(Array.from(scaled ?? [])).toEqual([expect.closeTo(0.6, 6), expect.closeTo(0.8, 6)]);
    expect(Array.from(zero ?? [])).toEqual([0, 0]);
  });

  it("rejects answers that break the contract, naming the embedder and what is wrong", async () => {
    await expect(embedChecked(fixed([Float32Array.of(1, 0)]), ["a", "b"])).rejects.toThrow(
      "Embedder fixed: returned 1 vectors for 2 texts",
    );
    await expect(embedChecked(fixed([Float32Array.of(1, 0, 0)]), ["a"])).rejects.toThrow(
      "vector 0 has 3 dimensions, expected 2",
    );
    await expect(embedChecked(fixed([Float32Array.of(1, Number.NaN)]), ["a"])).rejects.toThrow(
      "vector 0 holds NaN",
    );
    const throwing: TextEmbedder = {
      id: "broken",
      dimensions: 2,
      embed: async () => {
        throw new Error("model file missing");
      },
    };
    const failure = await embedChecked(throwing, ["a"]).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(EmbedderError);
    expect((failure as Error).message).toBe("Embedder broken: failed: model file missing");
  });
});

describe("word-vector files", () => {
  it("reads GloVe text (with or without a word2vec header) and keeps the first maxWords words", async () => {
    const plain = await writeTinyVectors(directory, "plain.txt");
    const table = await loadWordVectorTable(plain, 1_000);
    expect(table.dimensions).toBe(4);
    expect(table.rows.size).toBe(TINY_VECTORS.length);
    expect(table.rows.get("novel")).toBe(7);
    const headed = join(directory, "headed.txt");
    await writeFile(headed, tinyVectorsText(true));
    const firstFive = await loadWordVectorTable(headed, 5);
    expect([...firstFive.rows.keys()]).toEqual(["the", "i", "am", "a", "is"]);
  });

  it("reads the wink-embeddings JSON layout", async () => {
    const path = join(directory, "wink.json");
    const vectors = Object.fromEntries(TINY_VECTORS.map(([word, values]) => [word, [...values, 1, 0]]));
    await writeFile(
      path,
      JSON.stringify({ dimensions: 4, words: TINY_VECTORS.map(([word]) => word), vectors }),
    );
    const table = await loadWordVectorTable(path, 1_000);
    expect(table.rows.size).toBe(TINY_VECTORS.length);
    const row = table.rows.get("car") ?? -1;
    expect((table.components[row * 4 + 1] ?? 0) * (table.scales[row] ?? 0)).toBeCloseTo(1, 2);
  });

  it("names the file and line of a malformed vector, and a missing file", async () => {
    const path = join(directory, "bad.txt");
    await writeFile(path, "alpha 1 2 3\nbeta 1 two 3\n");
    const failure = await loadWordVectorTable(path, 100).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(WordVectorFileError);
    expect((failure as Error).message).toBe(
      `${path}:2: expected a word and 3 numbers, found 3 fields after "beta"`,
    );
    await expect(loadWordVectorTable(join(directory, "absent.txt"), 100)).rejects.toThrow(
      /absent\.txt: cannot be read \(ENOENT\)/,
    );
    const short = join(directory, "short.txt");
    await writeFile(short, "alpha 1 2 3\nbeta 1 2\n");
    await expect(loadWordVectorTable(short, 100)).rejects.toThrow(
      `${short}:2: expected a word and 3 numbers`,
    );
  });

  it("writes a binary cache once, reuses it, and rebuilds it when the source changes or it is damaged", async () => {
    const path = await writeTinyVectors(directory, "cached.txt");
    const first = await loadWordVectorTable(path, 50);
    const cache = (await readdir(directory)).find(
      (name) => name.startsWith("cached.txt.50.") && name.endsWith(".clewvec"),
    );
    expect(cache).toBeDefined();
    const cachePath = join(directory, cache ?? "");
    const written = (await stat(cachePath)).mtimeMs;
    const second = await loadWordVectorTable(path, 50);
    expect((await stat(cachePath)).mtimeMs).toBe(written);
    expect(second.rows).toEqual(first.rows);
    expect(Array.from(second.components)).toEqual(Array.from(first.components));
    expect(Array.from(second.scales)).toEqual(Array.from(first.scales));

    await writeFile(path, "novel 0 1 0 0\n");
    await utimes(path, new Date(), new Date(Date.now() + 5_000));
    expect([...(await loadWordVectorTable(path, 50)).rows.keys()]).toEqual(["novel"]);

    await writeFile(cachePath, "CLEWVEC1 damaged");
    expect([...(await loadWordVectorTable(path, 50)).rows.keys()]).toEqual(["novel"]);
  });
});
