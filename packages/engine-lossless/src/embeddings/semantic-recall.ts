/**
 * Search by meaning over a session's stored messages: each message is embedded once, into an
 * in-memory index per session that catches up with the store (messages are immutable and
 * append-only, so the index only ever reads what came after its newest seq), and a query is
 * compared with every vector (a dot product each: 50,000 messages of 100 dimensions take a few
 * milliseconds). Vectors are compared after subtracting the session's mean vector: averaged
 * word vectors all lean one common way, so raw cosines crowd together (0.65–0.85 on chat) and rank
 * poorly; centred, the direction a message adds to the conversation's average is what counts
 * (the common-component removal of SIF embeddings, with the session as the corpus). The index
 * lives in memory only; a new process embeds again on first use, which
 * `warm` does in background maintenance.
 *
 * Failures are data: when the embedder throws or breaks its contract, the search returns no hits
 * (recall then ranks by words alone) and the reason is logged once per distinct message.
 */
import type { AgentMessage, Logger } from "@clew/core";
import { readingBody } from "../recall/message-text.js";
import type { LosslessStore, SearchHit } from "../store/store.js";
import { embedChecked, type TextEmbedder } from "./text-embedder.js";

export interface SemanticRecall {
  /**
   * Stored messages of the session nearest to `query` in meaning, best first, at most `limit`, with
   * `minScore` as the least cosine similarity kept. Never throws.
   */
  nearestMessages(
    store: LosslessStore,
    sessionId: string,
    query: string,
    options: { limit: number; minScore?: number },
  ): Promise<SearchHit<number>[]>;
  /** Brings the session's index up to date with the store. Never throws. */
  warm(store: LosslessStore, sessionId: string): Promise<void>;
  /** Forgets every session's index. */
  clear(): void;
}

export interface SemanticRecallOptions {
  logger: Logger;
  /** Sessions whose index is kept in memory; the least recently used one is dropped (8). */
  maxSessions?: number;
}

/** Messages read and embedded per step while an index catches up. */
const PAGE = 256;

/**
 * Search by meaning with `embedder`, which may still be loading (a promise): searches wait for it,
 * and a load that fails makes every search return nothing, logged once.
 */
export function createSemanticRecall(
  embedder: TextEmbedder | Promise<TextEmbedder>,
  options: SemanticRecallOptions,
): SemanticRecall {
  const ready = Promise.resolve(embedder);
  // Nobody may be searching when a load fails; the failure is reported by the first search.
  ready.catch(() => undefined);
  const indexes = new Map<string, SessionVectors>();
  const maxSessions = options.maxSessions ?? 8;
  const reported = new Set<string>();
  const report = (sessionId: string, error: unknown) => {
    const reason = error instanceof Error ? error.message : String(error);
    if (reported.has(reason)) return;
    reported.add(reason);
    options.logger.warn("lossless: search by meaning is unavailable; recall uses words alone", {
      sessionId,
      error: reason,
    });
  };
  const indexOf = async (store: LosslessStore, sessionId: string): Promise<SessionVectors> => {
    const loaded = await ready;
    let index = indexes.get(sessionId);
    if (index === undefined || index.store !== store || index.embedder !== loaded)
      index = new SessionVectors(store, sessionId, loaded);
    indexes.delete(sessionId);
    indexes.set(sessionId, index);
    for (const oldest of indexes.keys()) {
      if (indexes.size <= maxSessions) break;
      indexes.delete(oldest);
    }
    return index;
  };
  return {
    async nearestMessages(store, sessionId, query, { limit, minScore = 0 }) {
      try {
        const index = await indexOf(store, sessionId);
        const [queryVectors] = await Promise.all([embedChecked(index.embedder, [query]), index.catchUp()]);
        const queryVector = queryVectors[0];
        return queryVector === undefined ? [] : index.nearest(queryVector, limit, minScore);
      } catch (error) {
        report(sessionId, error);
        return [];
      }
    },
    async warm(store, sessionId) {
      try {
        await (await indexOf(store, sessionId)).catchUp();
      } catch (error) {
        report(sessionId, error);
      }
    },
    clear: () => indexes.clear(),
  };
}

/** One session's vectors, in seq order, in growable typed arrays. */
class SessionVectors {
  private seqs = new Int32Array(1_024);
  /** 1 where the message's vector is not zero (it had a word the embedder knows). */
  private known = new Uint8Array(1_024);
  private vectors: Float32Array;
  private count = 0;
  private newestSeq = 0;
  /** Sum of the non-zero vectors, and how many there are: the session's mean direction. */
  private readonly sum: Float64Array;
  private nonZero = 0;
  private catchingUp: Promise<void> | undefined;

  constructor(
    readonly store: LosslessStore,
    private readonly sessionId: string,
    readonly embedder: TextEmbedder,
  ) {
    this.vectors = new Float32Array(this.seqs.length * embedder.dimensions);
    this.sum = new Float64Array(embedder.dimensions);
  }

  /** One pass at a time: concurrent callers share it. */
  catchUp(): Promise<void> {
    this.catchingUp ??= this.readNewMessages().finally(() => {
      this.catchingUp = undefined;
    });
    return this.catchingUp;
  }

  /**
   * Cosine similarity of the centred query and centred messages. With m the mean and unit vectors
   * q and d: (q−m)·(d−m) = q·d − q·m − d·m + m·m and |d−m|² = 1 − 2d·m + m·m, so two dot products
   * per message score them all without keeping centred copies (the mean moves as messages
   * arrive). Messages with no known word (zero vectors) never match.
   */
  nearest(query: Float32Array, limit: number, minScore: number): SearchHit<number>[] {
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
      if (this.known[row] === 0) continue;
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

  private async readNewMessages(): Promise<void> {
    for (;;) {
      const page = await this.store.readMessageRange(this.sessionId, {
        afterSeq: this.newestSeq,
        limit: PAGE,
      });
      if (page.length === 0) return;
      const texts = page.map((stored) => readingBody(JSON.parse(stored.json) as AgentMessage));
      const vectors = await embedChecked(this.embedder, texts);
      for (const [index, stored] of page.entries()) this.append(stored.seq, vectors[index] as Float32Array);
      this.newestSeq = page[page.length - 1]?.seq ?? this.newestSeq;
      if (page.length < PAGE) return;
    }
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

/** The dot product of `vector` and the row of `rows` starting at `offset` (as long as `vector`). */
function dot(vector: Float32Array, rows: Float32Array, offset: number): number {
  let sum = 0;
  for (let index = 0; index < vector.length; index++)
    sum += (vector[index] ?? 0) * (rows[offset + index] ?? 0);
  return sum;
}

/** Puts `hit` into `best` (kept sorted, best first, at most `limit` long). */
function insertRanked(best: SearchHit<number>[], hit: SearchHit<number>, limit: number): void {
  let at = best.length;
  while (at > 0 && (best[at - 1]?.score ?? 0) < hit.score) at--;
  best.splice(at, 0, hit);
  if (best.length > limit) best.pop();
}
