/**
 * The seam of search by meaning (`SemanticRecall`, which recall_search and query-aware evidence
 * call), and its implementation over a whole-text embedder: each message is embedded once, into
 * an in-memory index per session that pages in from the store (`session-indexes.ts`), and a
 * query is compared with every vector (a dot product each: 50,000 messages of 100 dimensions take
 * a few milliseconds). Vectors are compared after subtracting the session's mean vector: embedders
 * built from word vectors all lean one common way, so raw cosines crowd together (0.65–0.85 on
 * chat) and rank poorly; centred, the direction a message adds to the conversation's average is
 * what counts. The index lives in memory only; a new process embeds again on first use, which
 * `warm` does in background maintenance. Word vectors take the other implementation,
 * `word-vectors/soft-term-recall.ts`.
 *
 * Failures are data: when the embedder throws or breaks its contract, the search returns no hits
 * (recall then ranks by words alone) and the reason is logged once per distinct message.
 */
import type { Logger } from "@clew/core";
import { storedReadingBody } from "../recall/message-text.js";
import type { LosslessStore, SearchHit, StoredMessage, StoredMessageHead } from "../store/store.js";
import { PagedSessionIndex, SessionIndexes } from "./session-indexes.js";
import { embedChecked, type TextEmbedder } from "./text-embedder.js";

export interface SemanticRecall {
  /**
   * Whether the hits already rank exact word matches (soft term matching scores a word itself as
   * its own nearest neighbour): callers list them first and the full-text hits after. When false
   * the hits are by meaning only, and fill room after the words' hits.
   */
  readonly ranksWords: boolean;
  /**
   * Stored messages of the session nearest to `query` in meaning, best first, at most `limit`, with
   * `minScore` as the least score kept and the seqs `skip` names left out. `storedUpTo`, when the
   * caller knows it, is the newest seq the store holds: an index that holds it asks the store
   * nothing first. Never throws.
   */
  nearestMessages(
    store: LosslessStore,
    sessionId: string,
    query: string,
    options: NearestOptions,
  ): Promise<SearchHit<number>[]>;
  /**
   * Of `words` (the full-text search's, see `queryWords`), those a search for `query` does not
   * cover fully, which a full-text search has to: see `SessionTerms.uncoveredWords`. Asked right
   * after `nearestMessages` (with the same `queryWords`), as of the index that search caught up:
   * every word when it did not reach the store's end (or no search came first). Absent when the
   * index holds no words (an embedder's). Never throws; on a failure, every word.
   */
  uncoveredWords?(
    store: LosslessStore,
    sessionId: string,
    query: string,
    words: readonly string[],
    queryWords?: number,
  ): Promise<string[]>;
  /**
   * The heads of the messages among `seqs` that the index holds (a message's head never changes),
   * so a caller reads only the others from the store. Absent when the index keeps no heads (an
   * embedder's). Never throws; on a failure, none.
   */
  knownHeads?(store: LosslessStore, sessionId: string, seqs: readonly number[]): Promise<StoredMessageHead[]>;
  /** Brings the session's index up to date with the store. Never throws. */
  warm(store: LosslessStore, sessionId: string): Promise<void>;
  /** Forgets every session's index. */
  clear(): void;
}

export interface NearestOptions {
  limit: number;
  minScore?: number;
  skip?: (seq: number) => boolean;
  storedUpTo?: number;
  /**
   * For an index that ranks words: the most query words it searches, the rarest first (its own
   * default otherwise). Fewer make a search of a long prompt cheaper.
   */
  queryWords?: number;
}

export interface SemanticRecallOptions {
  logger: Logger;
  /** Sessions whose index is kept in memory; the least recently used one is dropped (8). */
  maxSessions?: number;
}

/**
 * Search by meaning with `embedder`, which may still be loading (a promise): searches wait for it,
 * and a load that fails makes every search return nothing, logged once.
 */
export function createSemanticRecall(
  embedder: TextEmbedder | Promise<TextEmbedder>,
  options: SemanticRecallOptions,
): SemanticRecall {
  const indexes = new SessionIndexes(
    embedder,
    (store, sessionId, loaded) => new SessionVectors(store, sessionId, loaded),
    options,
  );
  return {
    ranksWords: false,
    async nearestMessages(store, sessionId, query, { limit, minScore = 0, skip, storedUpTo }) {
      try {
        const [queryVectors, index] = await Promise.all([
          indexes.model().then((embedder) => embedChecked(embedder, [query])),
          indexes.current(store, sessionId, storedUpTo),
        ]);
        const queryVector = queryVectors[0];
        return queryVector === undefined ? [] : index.nearest(queryVector, limit, minScore, skip);
      } catch (error) {
        indexes.report(sessionId, error);
        return [];
      }
    },
    warm: (store, sessionId) => indexes.warm(store, sessionId),
    clear: () => indexes.clear(),
  };
}

/** One session's vectors, in seq order, in growable typed arrays. */
class SessionVectors extends PagedSessionIndex<TextEmbedder> {
  private seqs = new Int32Array(1_024);
  /** 1 where the message's vector is not zero (it had a word the embedder knows). */
  private known = new Uint8Array(1_024);
  private vectors: Float32Array;
  private count = 0;
  /** Sum of the non-zero vectors, and how many there are: the session's mean direction. */
  private readonly sum: Float64Array;
  private nonZero = 0;

  constructor(
    store: LosslessStore,
    sessionId: string,
    readonly embedder: TextEmbedder,
  ) {
    super(store, sessionId, embedder);
    this.vectors = new Float32Array(this.seqs.length * embedder.dimensions);
    this.sum = new Float64Array(embedder.dimensions);
  }

  /**
   * Cosine similarity of the centred query and centred messages. With m the mean and unit vectors
   * q and d: (q−m)·(d−m) = q·d − q·m − d·m + m·m and |d−m|² = 1 − 2d·m + m·m, so two dot products
   * per message score them all without keeping centred copies (the mean moves as messages
   * arrive). Messages with no known word (zero vectors) never match.
   */
  nearest(
    query: Float32Array,
    limit: number,
    minScore: number,
    skip: ((seq: number) => boolean) | undefined,
  ): SearchHit<number>[] {
    const dimensions = this.embedder.dimensions;
    const mean = new Float32Array(dimensions);
    if (this.nonZero > 1)
      for (let index = 0; index < dimensions; index++) mean[index] = (this.sum[index] ?? 0) / this.nonZero;
    const meanSquared = dot(mean, mean, 0);
    const queryMean = dot(query, mean, 0);
    const queryLength = Math.sqrt(Math.max(1 - 2 * queryMean + meanSquared, 0));
    const best: SearchHit<number>[] = [];
    if (queryLength === 0 || dot(query, query, 0) === 0) return best;
    for (let row = 0; row < this.count; row++) {
      if (this.known[row] === 0 || skip?.(this.seqs[row] ?? 0) === true) continue;
      const offset = row * dimensions;
      const rowMean = dot(mean, this.vectors, offset);
      const rowLength = Math.sqrt(Math.max(1 - 2 * rowMean + meanSquared, 0));
      if (rowLength === 0) continue;
      const score =
        (dot(query, this.vectors, offset) - queryMean - rowMean + meanSquared) / (queryLength * rowLength);
      if (score < minScore || (best.length >= limit && score <= (best[best.length - 1]?.score ?? 0)))
        continue;
      insertRanked(best, { key: this.seqs[row] ?? 0, score }, limit);
    }
    return best;
  }

  protected async addPage(page: readonly StoredMessage[]): Promise<void> {
    const texts = page.map(storedReadingBody);
    const vectors = await embedChecked(this.embedder, texts);
    for (const [index, stored] of page.entries()) this.append(stored.seq, vectors[index] as Float32Array);
  }

  private append(seq: number, vector: Float32Array): void {
    if (this.count === this.seqs.length) {
      const seqs = new Int32Array(this.seqs.length * 2);
      seqs.set(this.seqs);
      const known = new Uint8Array(seqs.length);
      known.set(this.known);
      this.known = known;
      const vectors = new Float32Array(seqs.length * this.embedder.dimensions);
      vectors.set(this.vectors);
      this.seqs = seqs;
      this.vectors = vectors;
    }
    this.seqs[this.count] = seq;
    this.vectors.set(vector, this.count * this.embedder.dimensions);
    this.count++;
    if (vector.some((value) => value !== 0)) {
      this.known[this.count - 1] = 1;
      this.nonZero++;
      for (let index = 0; index < vector.length; index++)
        this.sum[index] = (this.sum[index] ?? 0) + (vector[index] ?? 0);
    }
  }
}

/**
 * The meaning hits that `found` lacks, best first, each scored below `floor` (the lowest score of
 * the word hits they follow): recall_search and query-aware evidence list them after the words, so
 * meaning only fills room the words leave (see those files for what fusing them cost).
 */
export function meaningHitsAfter(
  meaningHits: readonly SearchHit<number>[],
  found: (seq: number) => boolean,
  floor: number,
): SearchHit<number>[] {
  return meaningHits
    .filter((hit) => !found(hit.key))
    .map((hit, rank) => ({ key: hit.key, score: floor / (2 + rank) }));
}

/**
 * `first`, then at most `limit` hits of `then` it lacks, in their order, scored below every hit of
 * `first`: one list ranks, the other only fills room after it.
 */
export function followedBy(
  first: readonly SearchHit<number>[],
  then: readonly SearchHit<number>[],
  limit: number,
): SearchHit<number>[] {
  const found = new Set(first.map((hit) => hit.key));
  let floor = Number.POSITIVE_INFINITY;
  for (const hit of first) floor = Math.min(floor, Math.max(hit.score, 0));
  if (!Number.isFinite(floor) || floor === 0) floor = 1;
  return [...first, ...meaningHitsAfter(then, (seq) => found.has(seq), floor).slice(0, limit)];
}

/**
 * The dot product of `vector` and the row of `rows` starting at `offset` (as long as `vector`).
 * Four sums at once: a query word is compared with thousands of rows, and the independent sums
 * run about a third faster than one (V8 does not vectorize the loop itself).
 */
export function dot(vector: Float32Array, rows: Float32Array, offset: number): number {
  const length = vector.length;
  let first = 0;
  let second = 0;
  let third = 0;
  let fourth = 0;
  let index = 0;
  for (; index + 3 < length; index += 4) {
    first += (vector[index] as number) * (rows[offset + index] as number);
    second += (vector[index + 1] as number) * (rows[offset + index + 1] as number);
    third += (vector[index + 2] as number) * (rows[offset + index + 2] as number);
    fourth += (vector[index + 3] as number) * (rows[offset + index + 3] as number);
  }
  for (; index < length; index++) first += (vector[index] as number) * (rows[offset + index] as number);
  return first + second + third + fourth;
}

/** Puts `hit` into `best` (kept sorted, best first, at most `limit` long). */
export function insertRanked(best: SearchHit<number>[], hit: SearchHit<number>, limit: number): void {
  let at = best.length;
  while (at > 0 && (best[at - 1]?.score ?? 0) < hit.score) at--;
  best.splice(at, 0, hit);
  if (best.length > limit) best.pop();
}
