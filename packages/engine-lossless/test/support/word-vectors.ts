import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { TextEmbedder } from "../../src/embeddings/text-embedder.js";

/**
 * A tiny GloVe-format file: frequent function words first (they weigh little), then words on four
 * axes of meaning: reading, cars, food, music. Real files hold hundreds of thousands of words; the
 * format and the ordering are the same.
 */
export const TINY_VECTORS: ReadonlyArray<[string, number[]]> = [
  ["the", [0.1, 0.1, 0.1, 0.1]],
  ["i", [0.1, 0.1, 0.1, 0.1]],
  ["am", [0.1, 0.1, 0.1, 0.1]],
  ["a", [0.1, 0.1, 0.1, 0.1]],
  ["is", [0.1, 0.1, 0.1, 0.1]],
  ["which", [0.1, 0.1, 0.1, 0.1]],
  ["what", [0.1, 0.1, 0.1, 0.1]],
  ["novel", [1, 0, 0, 0]],
  ["reading", [0.9, 0.1, 0, 0]],
  ["book", [0.95, 0, 0.05, 0]],
  ["halfway", [0.6, 0.2, 0, 0]],
  ["piranesi", [0.9, 0, 0, 0.1]],
  ["car", [0, 1, 0, 0]],
  ["drive", [0.05, 0.9, 0, 0]],
  ["volvo", [0, 0.95, 0, 0.05]],
  ["bought", [0.1, 0.5, 0.2, 0]],
  ["dinner", [0, 0, 1, 0]],
  ["cooking", [0, 0, 0.9, 0.1]],
  ["tagine", [0, 0.05, 0.95, 0]],
  ["concert", [0, 0, 0, 1]],
  ["cello", [0.05, 0, 0, 0.95]],
  ["lessons", [0.3, 0.1, 0, 0.6]],
];

export function tinyVectorsText(header = false): string {
  const lines = TINY_VECTORS.map(([word, values]) => `${word} ${values.join(" ")}`);
  return `${header ? `${TINY_VECTORS.length} 4\n` : ""}${lines.join("\n")}\n`;
}

export async function writeTinyVectors(directory: string, name = "tiny.txt"): Promise<string> {
  const path = join(directory, name);
  await writeFile(path, tinyVectorsText());
  return path;
}

/**
 * A whole-text embedder over `TINY_VECTORS`: the sum of the vectors of a text's known words. The
 * lossless engine embeds words this way only in tests; it is here to drive the embedder seam.
 */
export function tinyEmbedder(id = "tiny-sum"): TextEmbedder {
  const vectors = new Map(TINY_VECTORS);
  return {
    id,
    dimensions: 4,
    embed: async (texts) =>
      texts.map((text) => {
        const sum = new Float32Array(4);
        for (const word of text.toLowerCase().match(/[a-z]+/g) ?? [])
          vectors.get(word)?.forEach((value, index) => {
            sum[index] = (sum[index] ?? 0) + value;
          });
        return sum;
      }),
  };
}
