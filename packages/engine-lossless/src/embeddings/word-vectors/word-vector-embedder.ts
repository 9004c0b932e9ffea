/**
 * A local embedder from pre-trained word vectors: a text's vector is the weighted mean of its
 * words' vectors, each word weighted by how rare it is (`a / (a + p(word))`, the "smooth inverse
 * frequency" of Arora et al., with p from the word's frequency rank in the vector file, which
 * lists the most frequent words first). Frequent words ("the", "have") barely count; a rare word
 * pulls the text toward its meaning. Deterministic, no network, no model runtime: a few thousand
 * multiply-adds per text.
 */
import type { TextEmbedder } from "../text-embedder.js";
import { loadWordVectorTable, type WordVectorTable } from "./word-vector-table.js";

export interface WordVectorEmbedderOptions {
  /** A GloVe-format text file or a wink-embeddings JSON file (see word-vector-table.ts). */
  path: string;
  /** Words kept from the file, most frequent first (200,000). */
  maxWords?: number;
}

/** The SIF smoothing constant; the paper's choice for corpora of this size. */
const SMOOTHING = 1e-3;
/** Characters of a text that are embedded: a long tool output is judged by its opening. */
const MAX_TEXT_CHARS = 4_000;
const WORD = /[\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*/gu;

export const DEFAULT_MAX_WORDS = 200_000;

/** Loads the table, then embeds with it. @throws WordVectorFileError when the file is unusable. */
export async function openWordVectorEmbedder(options: WordVectorEmbedderOptions): Promise<TextEmbedder> {
  const maxWords = options.maxWords ?? DEFAULT_MAX_WORDS;
  const table = await loadWordVectorTable(options.path, maxWords);
  return wordVectorEmbedder(table, `word-vectors:${options.path}#${maxWords}`);
}

export function wordVectorEmbedder(table: WordVectorTable, id: string): TextEmbedder {
  const weights = rankWeights(table.scales.length);
  const embedOne = (text: string): Float32Array => {
    const sum = new Float32Array(table.dimensions);
    for (const row of rowsOf(table, text)) {
      const weight = (weights[row] ?? 0) * (table.scales[row] ?? 0);
      const offset = row * table.dimensions;
      for (let dimension = 0; dimension < table.dimensions; dimension++)
        sum[dimension] = (sum[dimension] ?? 0) + weight * (table.components[offset + dimension] ?? 0);
    }
    return sum;
  };
  return {
    id,
    dimensions: table.dimensions,
    embed: async (texts) => texts.map(embedOne),
  };
}

/** Table rows of a text's lower-cased words; a hyphenated word the table lacks counts by its parts. */
function* rowsOf(table: WordVectorTable, text: string): Generator<number> {
  for (const match of text.slice(0, MAX_TEXT_CHARS).toLowerCase().matchAll(WORD)) {
    const row = table.rows.get(match[0]);
    if (row !== undefined) {
      yield row;
      continue;
    }
    for (const part of match[0].split(/['’-]/)) {
      const partRow = part === match[0] ? undefined : table.rows.get(part);
      if (partRow !== undefined) yield partRow;
    }
  }
}

/** Zipf's law puts a word of rank r at frequency ≈ 1 / (r · H); SIF turns that into a weight. */
function rankWeights(count: number): Float32Array {
  const harmonic = Math.log(Math.max(count, 2)) + 0.5772;
  const weights = new Float32Array(count);
  for (let rank = 0; rank < count; rank++) {
    const frequency = 1 / ((rank + 1) * harmonic);
    weights[rank] = SMOOTHING / (SMOOTHING + frequency);
  }
  return weights;
}
