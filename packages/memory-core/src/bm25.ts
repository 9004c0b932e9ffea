/**
 * Okapi BM25 over small in-memory corpora (a workspace's notes: hundreds of paragraphs, not
 * millions), with a tokenizer that needs no native code: case and accents folded, words of
 * letters and digits, scripts written without spaces (Han, kana) split into characters, and a
 * short list of English function words dropped.
 */

/** Common BM25 settings: term-frequency saturation and length normalisation. */
export const BM25_K1 = 1.2;
export const BM25_B = 0.75;

const STOP_WORDS = new Set(
  (
    "a an and are as at be but by for from has have he her his i if in into is it its me my of on or our " +
    "she so that the their them they this to was we were what when where which who will with you your"
  ).split(" "),
);

const WORD = /[\p{L}\p{N}]+/gu;
const NO_SPACE_SCRIPT = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;
const COMBINING_MARKS = /\p{M}/gu;

/** Search tokens of `text`, in order, duplicates kept (term frequency counts them). */
export function tokenize(text: string): string[] {
  const folded = text.normalize("NFKD").replace(COMBINING_MARKS, "").toLowerCase();
  const tokens: string[] = [];
  for (const [word] of folded.matchAll(WORD)) {
    if (NO_SPACE_SCRIPT.test(word)) {
      tokens.push(...splitNoSpaceScript(word));
    } else if (!STOP_WORDS.has(word)) {
      tokens.push(word);
    }
  }
  return tokens;
}

/** Han and kana characters one by one; other letters in the same run stay words. */
function splitNoSpaceScript(word: string): string[] {
  const tokens: string[] = [];
  let pending = "";
  for (const character of word) {
    if (NO_SPACE_SCRIPT.test(character)) {
      if (pending !== "") tokens.push(pending);
      pending = "";
      tokens.push(character);
    } else {
      pending += character;
    }
  }
  if (pending !== "") tokens.push(pending);
  return tokens;
}

export interface Bm25Match {
  /** Index of the document in the array the index was built from. */
  index: number;
  score: number;
}

/** A BM25 index of already tokenized documents. Immutable once built. */
export class Bm25Index {
  private readonly termCounts: Array<Map<string, number>>;
  private readonly lengths: number[];
  private readonly documentFrequency = new Map<string, number>();
  private readonly averageLength: number;

  constructor(documents: readonly (readonly string[])[]) {
    this.termCounts = documents.map((tokens) => {
      const counts = new Map<string, number>();
      for (const token of tokens) counts.set(token, (counts.get(token) ?? 0) + 1);
      for (const term of counts.keys())
        this.documentFrequency.set(term, (this.documentFrequency.get(term) ?? 0) + 1);
      return counts;
    });
    this.lengths = documents.map((tokens) => tokens.length);
    const total = this.lengths.reduce((sum, length) => sum + length, 0);
    this.averageLength = documents.length === 0 ? 0 : total / documents.length;
  }

  /**
   * Documents with a positive score for `queryTokens`, best first (ties keep corpus order).
   * Repeated query terms count once.
   */
  search(queryTokens: readonly string[]): Bm25Match[] {
    const terms = [...new Set(queryTokens)].filter((term) => this.documentFrequency.has(term));
    const matches: Bm25Match[] = [];
    this.termCounts.forEach((counts, index) => {
      let score = 0;
      for (const term of terms)
        score += this.termScore(term, counts.get(term) ?? 0, this.lengths[index] ?? 0);
      if (score > 0) matches.push({ index, score });
    });
    return matches.sort((left, right) => right.score - left.score || left.index - right.index);
  }

  /** Inverse document frequency, in the form that never goes negative for very common terms. */
  private idf(term: string): number {
    const frequency = this.documentFrequency.get(term) ?? 0;
    const count = this.termCounts.length;
    return Math.log(1 + (count - frequency + 0.5) / (frequency + 0.5));
  }

  private termScore(term: string, frequency: number, length: number): number {
    if (frequency === 0) return 0;
    const normalisedLength = this.averageLength === 0 ? 1 : length / this.averageLength;
    const saturation = frequency * (BM25_K1 + 1);
    const damping = frequency + BM25_K1 * (1 - BM25_B + BM25_B * normalisedLength);
    return this.idf(term) * (saturation / damping);
  }
}
