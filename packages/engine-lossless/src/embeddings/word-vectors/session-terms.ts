/**
 * One session's words, for soft term matching: every distinct word of every stored message (its
 * readable text, up to `MAX_TEXT_CHARS`), with the messages it occurs in (postings) and, for words
 * the vector table knows, a unit vector. A query word is matched against the session's vocabulary,
 * not the whole table, so its neighbours are words the session actually uses.
 *
 * Scoring is BM25 with a soft term frequency: a query word counts in a message through the
 * message's word nearest to it in meaning (cosine ≥ `minSimilarity`; the word itself counts 1),
 * weighted by that word's rarity in the session. "What car does she drive?" then meets "I bought a
 * used Volvo 240" through car ≈ volvo; of two equally rare words, the query's own counts most.
 */
import type { AgentMessage } from "@clew/core";
import { readingBody } from "../../recall/message-text.js";
import { isStopword, POSSESSIVE } from "../../recall/query-words.js";
import type { LosslessStore, SearchHit, StoredMessage } from "../../store/store.js";
import { dot } from "../semantic-recall.js";
import { PagedSessionIndex } from "../session-indexes.js";
import type { WordVectorTable } from "./word-vector-table.js";

/** Characters of a message that are indexed: a long tool output counts by its opening. */
const MAX_TEXT_CHARS = 4_000;
const WORD = /[\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*/gu;
/** Nearest session words a query word may match through; bounds the postings read per word. */
const MAX_NEIGHBOURS = 48;
/**
 * Postings scored per session word: its newest ones. A word in more messages than this is common
 * (its rarity weight is low), and its older matches are what the full-text hits that follow these
 * still cover; without the cap one prompt at 50k messages took 25–70 ms.
 */
const MAX_POSTINGS = 256;
/** Query words searched: the rarest, as the table ranks them (words it lacks count as rarest). */
const MAX_QUERY_TERMS = 12;
/** A neighbour in more than this share of the messages (and more than `MIN_COMMON`) is skipped. */
const COMMON_SHARE = 0.1;
const MIN_COMMON = 50;
/** BM25's usual constants. */
const K1 = 1.2;
const B = 0.75;

interface Neighbour {
  word: number;
  similarity: number;
}

/** A query word's neighbours among the first `scannedWords` vocabulary words (`scannedRows` vectors). */
interface NeighbourList {
  neighbours: Neighbour[];
  scannedWords: number;
  scannedRows: number;
}

export class SessionTerms extends PagedSessionIndex<WordVectorTable> {
  private readonly vocabulary = new Map<string, number>();
  private postings: number[][] = [];
  /** Per vocabulary word, its row among `vectors`, or -1 when the table does not know it. */
  private vectorRows: number[] = [];
  private vectors = new Float32Array(0);
  private vectorCount = 0;
  /** Per row of `vectors`, its vocabulary word. */
  private vectorWords: number[] = [];
  private seqs: number[] = [];
  private lengths: number[] = [];
  private totalLength = 0;
  /** Neighbour lists of recent query words, extended as the vocabulary grows. */
  private readonly neighbourCache = new Map<string, NeighbourList>();
  /**
   * Per row, its score so far and its best score for the current query word: kept between
   * searches (and zeroed where used), since allocating them per search cost as much as scoring.
   */
  private totals = new Float64Array(0);
  private termBest = new Float64Array(0);

  constructor(
    store: LosslessStore,
    sessionId: string,
    private readonly table: WordVectorTable,
    private readonly minSimilarity: number,
  ) {
    super(store, sessionId, table);
  }

  /** The best `limit` messages for `query`'s words, leaving out the seqs `skip` names. */
  search(query: string, limit: number, skip?: (seq: number) => boolean): SearchHit<number>[] {
    const count = this.seqs.length;
    if (count === 0 || limit <= 0) return [];
    if (this.totals.length < count) {
      this.totals = new Float64Array(Math.max(count, this.totals.length * 2));
      this.termBest = new Float64Array(this.totals.length);
    }
    /** Rows with a score above zero, each once. */
    const scored: number[] = [];
    const best: SearchHit<number>[] = [];
    try {
      this.scoreRows(query, count, scored);
      for (const row of scored) {
        const score = this.totals[row] as number;
        const seq = this.seqs[row] as number;
        if (best.length >= limit && !ranksAbove(score, seq, best[best.length - 1] as SearchHit<number>))
          continue;
        if (skip === undefined || !skip(seq)) insertRanked(best, { key: seq, score }, limit);
      }
    } catch (error) {
      this.termBest.fill(0);
      throw error;
    } finally {
      for (const row of scored) this.totals[row] = 0;
    }
    return best;
  }

  /** Adds each row's score for `query` to `totals`, listing in `scored` the rows it gives one. */
  private scoreRows(query: string, count: number, scored: number[]): void {
    const { totals, termBest } = this;
    const averageLength = this.totalLength / count;
    const touched: number[] = [];
    const rarityOf = (postings: readonly number[]) =>
      Math.log(1 + (count - postings.length + 0.5) / (postings.length + 0.5));
    for (const word of this.rarestFirst(queryWordsOf(query)).slice(0, MAX_QUERY_TERMS)) {
      const own = this.vocabulary.get(word);
      for (const neighbour of this.neighboursOf(word)) {
        const postings = this.postings[neighbour.word] ?? [];
        const exact = neighbour.word === own;
        // A stand-in as common as this says little about any one message, and would cost a pass
        // over a large share of the session.
        if (!exact && postings.length > Math.max(MIN_COMMON, count * COMMON_SHARE)) continue;
        // Each word weighs by its own rarity: a rare stand-in can outrank a common exact word ("car"
        // in forty messages says less than the one "Volvo"). Capping stand-ins at the query
        // word's rarity was measured: M1 at 2k 78.3 → 75.4 %, the other budgets unchanged.
        const rarity = rarityOf(postings);
        // Postings are in message order: the newest come last.
        for (let at = Math.max(0, postings.length - MAX_POSTINGS); at < postings.length; at++) {
          const row = postings[at] as number;
          const norm = 1 - B + (B * (this.lengths[row] as number)) / averageLength;
          const score = (rarity * neighbour.similarity * (K1 + 1)) / (neighbour.similarity + K1 * norm);
          const previous = termBest[row] as number;
          if (previous === 0) touched.push(row);
          if (score > previous) termBest[row] = score;
        }
      }
      for (const row of touched) {
        const termScore = termBest[row] as number;
        termBest[row] = 0;
        if (!(termScore > 0)) continue;
        if (totals[row] === 0) scored.push(row);
        totals[row] = (totals[row] as number) + termScore;
      }
      touched.length = 0;
    }
  }

  /** `words` with the least frequent first, by their rank in the table (its files list the most frequent first). */
  private rarestFirst(words: string[]): string[] {
    const rank = (word: string) => this.table.rows.get(word) ?? Number.MAX_SAFE_INTEGER;
    return words.length <= MAX_QUERY_TERMS
      ? words
      : [...words].sort((left, right) => rank(right) - rank(left));
  }

  /** The word itself (when the session uses it) and its nearest session words by meaning. */
  private neighboursOf(word: string): Neighbour[] {
    let list = this.neighbourCache.get(word);
    if (list === undefined) {
      list = { neighbours: [], scannedWords: 0, scannedRows: 0 };
      if (this.neighbourCache.size >= 512) this.neighbourCache.clear();
      this.neighbourCache.set(word, list);
    }
    if (list.scannedWords < this.vectorRows.length) this.extend(word, list);
    return list.neighbours;
  }

  /** Adds the neighbours among vocabulary words added since the list was last extended. */
  private extend(word: string, list: NeighbourList): void {
    const fromWord = list.scannedWords;
    const fromRow = list.scannedRows;
    list.scannedWords = this.vectorRows.length;
    list.scannedRows = this.vectorCount;
    const own = this.vocabulary.get(word);
    const before = list.neighbours.length;
    if (own !== undefined && own >= fromWord) list.neighbours.unshift({ word: own, similarity: 1 });
    const query = this.table.rows.get(word);
    if (query !== undefined) {
      const queryVector = unitRow(this.table, query);
      const dimensions = this.table.dimensions;
      const ownRow = own === undefined ? -1 : (this.vectorRows[own] as number);
      // Only the words the table knows have a row: the loop never meets the others.
      for (let row = fromRow; row < list.scannedRows; row++) {
        if (row === ownRow) continue;
        const similarity = dot(queryVector, this.vectors, row * dimensions);
        if (similarity >= this.minSimilarity)
          list.neighbours.push({ word: this.vectorWords[row] as number, similarity });
      }
    }
    if (list.neighbours.length === before) return;
    list.neighbours.sort((left, right) => right.similarity - left.similarity);
    list.neighbours.length = Math.min(list.neighbours.length, MAX_NEIGHBOURS);
  }

  protected addPage(page: readonly StoredMessage[]): void {
    // Texts first: a page is added whole or not at all (a failure here leaves the index as it was).
    const texts = page.map(readableText);
    for (const [index, stored] of page.entries()) this.add(stored.seq, texts[index] ?? "");
  }

  private add(seq: number, text: string): void {
    const row = this.seqs.length;
    this.seqs.push(seq);
    const words = text.slice(0, MAX_TEXT_CHARS).toLowerCase().match(WORD) ?? [];
    for (const match of words) {
      const term = termOf(match);
      if (term === undefined) continue;
      const postings = this.postings[this.wordId(term)] as number[];
      // Rows are added in order, so a word this message already has ends its postings with it.
      if (postings[postings.length - 1] !== row) postings.push(row);
    }
    this.lengths.push(words.length);
    this.totalLength += words.length;
  }

  private wordId(word: string): number {
    const known = this.vocabulary.get(word);
    if (known !== undefined) return known;
    const id = this.postings.length;
    this.vocabulary.set(word, id);
    this.postings.push([]);
    const tableRow = this.table.rows.get(word);
    if (tableRow === undefined) {
      this.vectorRows.push(-1);
      return id;
    }
    const dimensions = this.table.dimensions;
    if ((this.vectorCount + 1) * dimensions > this.vectors.length) {
      const grown = new Float32Array(Math.max(1_024, this.vectorCount * 2) * dimensions);
      grown.set(this.vectors);
      this.vectors = grown;
    }
    this.vectors.set(unitRow(this.table, tableRow), this.vectorCount * dimensions);
    this.vectorRows.push(this.vectorCount);
    this.vectorWords.push(id);
    this.vectorCount++;
    return id;
  }
}

/** A query's distinct terms (see `termOf`), in order. */
function queryWordsOf(query: string): string[] {
  const terms = new Set<string>();
  for (const match of query.toLowerCase().matchAll(WORD)) {
    const term = termOf(match[0]);
    if (term !== undefined) terms.add(term);
  }
  return [...terms];
}

/**
 * The term a lower-cased word is indexed and searched as: possessive dropped ("maya's" → "maya");
 * none for a function word or a single letter. Messages and queries go through the same rule.
 */
function termOf(word: string): string | undefined {
  const term = word.replace(POSSESSIVE, "");
  return isStopword(term) || (term.length < 2 && !/\p{N}/u.test(term)) ? undefined : term;
}

/** A stored message's readable text; a row that cannot be read counts as empty (never blocks the index). */
function readableText(stored: StoredMessage): string {
  try {
    return readingBody(JSON.parse(stored.json) as AgentMessage);
  } catch {
    return "";
  }
}

/** Row `row` of the table as a unit vector of floats. */
function unitRow(table: WordVectorTable, row: number): Float32Array {
  const dimensions = table.dimensions;
  const scale = table.scales[row] ?? 0;
  const vector = new Float32Array(dimensions);
  let sum = 0;
  for (let dimension = 0; dimension < dimensions; dimension++) {
    const value = (table.components[row * dimensions + dimension] ?? 0) * scale;
    vector[dimension] = value;
    sum += value * value;
  }
  if (sum === 0) return vector;
  const inverse = 1 / Math.sqrt(sum);
  for (let dimension = 0; dimension < dimensions; dimension++)
    vector[dimension] = (vector[dimension] ?? 0) * inverse;
  return vector;
}

/** Whether a hit of `score` at `seq` ranks above `hit`: a higher score, or as high and newer. */
function ranksAbove(score: number, seq: number, hit: SearchHit<number>): boolean {
  return score > hit.score || (score === hit.score && seq > hit.key);
}

/** Puts `hit` into `best` (kept in rank order, see `ranksAbove`, at most `limit` long). */
function insertRanked(best: SearchHit<number>[], hit: SearchHit<number>, limit: number): void {
  let at = best.length;
  while (at > 0 && ranksAbove(hit.score, hit.key, best[at - 1] as SearchHit<number>)) at--;
  best.splice(at, 0, hit);
  if (best.length > limit) best.pop();
}
