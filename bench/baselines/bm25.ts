/**
 * Okapi BM25 over a growing set of documents, written here rather than taken from npm: it is about
 * eighty lines, the bench needs deterministic tie-breaking (earlier document first) and documents
 * that arrive one at a time, and the small npm packages either re-index everything per query or
 * are unmaintained.
 *
 * score(d, q) = Σ_t∈q idf(t) · tf(t,d)·(k1+1) / (tf(t,d) + k1·(1 − b + b·|d|/avgdl)),
 * idf(t) = ln(1 + (N − df(t) + 0.5) / (df(t) + 0.5)), with k1 = 1.2 and b = 0.75 by default.
 */

export interface Bm25Hit<Id> {
  id: Id;
  score: number;
}

export interface Bm25Options {
  k1?: number;
  b?: number;
}

/** A document as scoring needs it: its length in terms and how often a term occurs in it. */
export interface Bm25Document {
  length: number;
  frequency(term: string): number;
}

/**
 * BM25 score of each document for `queryTerms`, in document order (0 when no term is shared).
 * For documents rebuilt per query from cached statistics: costs documents × distinct query terms,
 * with no index to build. Never throws.
 */
export function bm25Scores(
  documents: readonly Bm25Document[],
  queryTerms: readonly string[],
  options: Bm25Options = {},
): number[] {
  const k1 = options.k1 ?? 1.2;
  const b = options.b ?? 0.75;
  const scores = new Array<number>(documents.length).fill(0);
  if (documents.length === 0) return scores;
  const averageLength = documents.reduce((sum, document) => sum + document.length, 0) / documents.length || 1;
  for (const term of new Set(queryTerms)) {
    const frequencies = documents.map((document) => document.frequency(term));
    const containing = frequencies.filter((frequency) => frequency > 0).length;
    if (containing === 0) continue;
    const idf = Math.log(1 + (documents.length - containing + 0.5) / (containing + 0.5));
    frequencies.forEach((frequency, index) => {
      if (frequency === 0) return;
      const length = documents[index]?.length ?? 0;
      const norm = frequency + k1 * (1 - b + (b * length) / averageLength);
      scores[index] = (scores[index] ?? 0) + (idf * frequency * (k1 + 1)) / norm;
    });
  }
  return scores;
}

export class Bm25Index<Id> {
  private readonly ids: Id[] = [];
  private readonly lengths: number[] = [];
  /** term → [document index, term frequency] pairs, in document order. */
  private readonly postings = new Map<string, Array<[number, number]>>();
  private totalLength = 0;
  private readonly k1: number;
  private readonly b: number;

  constructor(options: Bm25Options = {}) {
    this.k1 = options.k1 ?? 1.2;
    this.b = options.b ?? 0.75;
  }

  get size(): number {
    return this.ids.length;
  }

  /** Adds a document made of `terms` (already tokenized). Duplicate ids are separate documents. */
  add(id: Id, terms: readonly string[]): void {
    const document = this.ids.length;
    const frequencies = new Map<string, number>();
    for (const term of terms) frequencies.set(term, (frequencies.get(term) ?? 0) + 1);
    for (const [term, frequency] of frequencies) {
      let list = this.postings.get(term);
      if (list === undefined) {
        list = [];
        this.postings.set(term, list);
      }
      list.push([document, frequency]);
    }
    this.ids.push(id);
    this.lengths.push(terms.length);
    this.totalLength += terms.length;
  }

  /**
   * Documents sharing at least one term with `queryTerms`, best first, at most `limit` (all when
   * `limit` is Infinity). Equal scores keep document order. Never throws; an empty index or a
   * query with no known term gives `[]`.
   */
  search(queryTerms: readonly string[], limit: number): Bm25Hit<Id>[] {
    const count = this.ids.length;
    if (count === 0 || limit <= 0) return [];
    const averageLength = this.totalLength / count || 1;
    const scores = new Map<number, number>();
    for (const term of new Set(queryTerms)) {
      const list = this.postings.get(term);
      if (list === undefined) continue;
      const idf = Math.log(1 + (count - list.length + 0.5) / (list.length + 0.5));
      for (const [document, frequency] of list) {
        const length = this.lengths[document] ?? 0;
        const norm = frequency + this.k1 * (1 - this.b + (this.b * length) / averageLength);
        scores.set(document, (scores.get(document) ?? 0) + (idf * frequency * (this.k1 + 1)) / norm);
      }
    }
    return [...scores]
      .sort(([leftDoc, left], [rightDoc, right]) => right - left || leftDoc - rightDoc)
      .slice(0, limit)
      .map(([document, score]) => ({ id: this.ids[document] as Id, score }));
  }
}
