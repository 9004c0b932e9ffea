import { writeFile } from "node:fs/promises";
import { join } from "node:path";

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
