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
import { isStoredHousekeeping } from "../../recall/stored-housekeeping.js";
import type { LosslessStore, SearchHit, StoredMessage, StoredMessageHead } from "../../store/store.js";
import { PagedSessionIndex } from "../session-indexes.js";
import { createVectorRows, type VectorRows } from "../vector-rows/vector-rows.js";
import { keepNearest, NearestRows, type Neighbour, type NeighbourList } from "./nearest-rows.js";
import { completeRows, insertRanked, type RankedHit, ranksAbove, type Scoring } from "./ranked-hits.js";
import { RowHeads } from "./row-heads.js";
import { indexedWords, plainWord, queryWordsOf, readableText, termOf } from "./session-words.js";
import { unitRowOf, type WordVectorTable } from "./word-vector-table.js";

/** Nearest session words a query word may match through; bounds the postings read per word. */
const MAX_NEIGHBOURS = 48;
/**
 * Postings scored per session word: its newest ones among the messages the caller may be shown
 * (those it skips, already in its context, are passed over). A word in more messages than this is
 * common (its rarity weight is low); the full-text search ranks only a word's newest matches too,
 * fewer of them, so it is not asked again for such a word. Without the cap one prompt at 50k
 * messages took 25–70 ms.
 */
const MAX_POSTINGS = 256;
/**
 * A message holding every searched word itself (not a stand-in) of a query of at least this many
 * words that messages the caller may be shown hold ranks above every other: BM25 divides by
 * length, so a long output holding the whole question ranked below short messages matching one
 * word loosely. With fewer words such matches
 * are common and say little: from two words on, M2 recall@10 lost 2.9 points and M1 at 4k 1.4;
 * from four, no figure moved but M4 (needles verbatim after five compactions, 74 → 100 %).
 */
const COMPLETE_MATCH_TERMS = 4;
/**
 * Query words searched unless the caller asks for fewer (`search`): the rarest, as the table ranks
 * them (words it lacks count as rarest).
 */
const MAX_QUERY_TERMS = 12;
/**
 * A neighbour in more messages than `standInBar` allows is skipped: a word that common says little
 * about any one message. The bar is this share of the messages: at a tenth instead of a hundredth,
 * M1 in the bench's long transcripts was 60.9 / 63.8 % at 32k / 64k instead of 65.2 / 68.1 % (M2
 * recall@5 67.4 against 65.9 %, @25 89.9 against 90.6 %).
 */
const COMMON_SHARE = 0.01;
const MIN_COMMON = 50;
/**
 * The bar stops rising here (at 10,000 messages), so the postings a prompt scores stop growing with
 * the session: a stand-in is scored in at most this many messages, and 48 of them per query word.
 * With the bar at a hundredth of 50,000 messages, prompts of the engine bench scored 16,600
 * stand-in postings each on average (4,100 at 10,000), and the search took 1.7–2.1 ms on average
 * instead of 1.0. The quality suite's sessions are smaller: its bar is `MIN_COMMON` throughout.
 */
const MAX_COMMON = 100;

/** Most messages a stand-in may occur in, in a session of `count` messages. */
function standInBar(count: number): number {
  return Math.max(MIN_COMMON, Math.min(MAX_COMMON, count * COMMON_SHARE));
}
/** BM25's usual constants. */
const K1 = 1.2;
const B = 0.75;

export class SessionTerms extends PagedSessionIndex<WordVectorTable> {
  private readonly vocabulary = new Map<string, number>();
  private postings: number[][] = [];
  /** Per vocabulary word, its row among `vectors`, or -1 when the table does not know it. */
  private rowOfWord: number[] = [];
  private readonly vectors: VectorRows;
  /** Per row of `vectors`, its vocabulary word. */
  private vectorWords: number[] = [];
  /** One row per indexed message, with its head. */
  private readonly rows = new RowHeads();
  private lengths: number[] = [];
  private totalLength = 0;
  /** Picks a scan's nearest rows. */
  private readonly nearest = new NearestRows(MAX_NEIGHBOURS);
  /** Neighbour lists of recent query words, extended as the vocabulary grows. */
  private readonly neighbourCache = new Map<string, NeighbourList>();
  /** `searchedTerms` of the last query (callers only read the list). */
  private lastSearched: { query: string; queryWords: number; terms: string[] } | undefined;
  /**
   * Per row, its score so far and its best score for the current query word: kept between
   * searches (and zeroed where used), since allocating them per search cost as much as scoring.
   */
  private totals = new Float64Array(0);
  private termBest = new Float64Array(0);
  /** Rows scored by the current search, and rows touched by its current query word. */
  private scored = new Int32Array(0);
  private touched = new Int32Array(0);

  constructor(
    store: LosslessStore,
    sessionId: string,
    private readonly table: WordVectorTable,
    private readonly minSimilarity: number,
    vectorScan: "wasm" | "js" = "wasm",
  ) {
    super(store, sessionId, table);
    this.vectors = createVectorRows(table.dimensions, vectorScan);
  }

  /**
   * The best `limit` messages for `query`'s words, leaving out the seqs `skip` names: complete
   * matches first (see `COMPLETE_MATCH_TERMS`), then by score.
   */
  search(
    query: string,
    limit: number,
    skip?: (seq: number) => boolean,
    queryWords = MAX_QUERY_TERMS,
  ): SearchHit<number>[] {
    const count = this.rows.count;
    if (count === 0 || limit <= 0) return [];
    this.ensureScratch(count);
    const best: RankedHit[] = [];
    let scoredCount = 0;
    try {
      const scoring = this.scoreRows(query, queryWords, count, skip);
      scoredCount = scoring.scored;
      const { totals, scored } = this;
      const { seqs } = this.rows;
      // Rows `skip` names were never scored (see `scoreRows`), so none of them is complete.
      const complete =
        scoring.present.length >= COMPLETE_MATCH_TERMS
          ? completeRows(scoring.present, (row) => (totals[row] as number) > 0)
          : undefined;
      for (let index = 0; index < scoredCount; index++) {
        const row = scored[index] as number;
        const key = seqs[row] as number;
        const score = totals[row] as number;
        const isComplete = complete?.has(row) === true;
        // A hit is made only for a row that makes the list: thousands are scored per search, and
        // one object each was most of what a search allocated.
        const last = best[best.length - 1];
        if (best.length < limit || ranksAbove(isComplete, score, key, last as RankedHit))
          insertRanked(best, { key, score, complete: isComplete }, limit);
      }
    } catch (error) {
      this.termBest.fill(0);
      this.totals.fill(0);
      throw error;
    } finally {
      for (let index = 0; index < scoredCount; index++) this.totals[this.scored[index] as number] = 0;
    }
    return best.map(({ key, score }) => ({ key, score }));
  }

  /**
   * Per-row scratch for one search, grown with the session: allocating it per search (or letting
   * row lists grow as arrays) cost as much as the scoring, mostly in garbage collection.
   */
  private ensureScratch(count: number): void {
    if (this.totals.length >= count) return;
    const size = Math.max(count, this.totals.length * 2);
    this.totals = new Float64Array(size);
    this.termBest = new Float64Array(size);
    this.scored = new Int32Array(size);
    this.touched = new Int32Array(size);
  }

  /**
   * Adds each row's score for `query` to `totals`; lists the rows it gives one, each once, at the
   * start of `scored`, and answers how many. BM25 is rearranged so a posting costs one multiply,
   * one add and one division: `rarity·s·(k1+1) / (s + k1·(1−b) + k1·b·length/average)`.
   */
  private scoreRows(
    query: string,
    queryWords: number,
    count: number,
    skip: ((seq: number) => boolean) | undefined,
  ): Scoring {
    const { totals, termBest, scored, touched, lengths } = this;
    const { seqs } = this.rows;
    const lengthWeight = (K1 * B * count) / Math.max(1, this.totalLength);
    const base = K1 * (1 - B);
    let scoredCount = 0;
    const present: (readonly number[])[] = [];
    const commonBar = standInBar(count);
    for (const word of this.searchedTerms(query, queryWords)) {
      const own = this.vocabulary.get(word);
      let ownWalked = false;
      let touchedCount = 0;
      for (const neighbour of this.neighboursOf(word)) {
        const postings = this.postings[neighbour.word] ?? [];
        // The word itself, once: what makes a match complete.
        const exact = neighbour.word === own && !ownWalked;
        if (exact) ownWalked = true;
        // A stand-in as common as this says little about any one message, and would cost a pass
        // over a large share of the session.
        if (!exact && postings.length > commonBar) continue;
        // Each word weighs by its own rarity: a rare stand-in can outrank a common exact word ("car"
        // in forty messages says less than the one "Volvo"). Capping stand-ins at the query
        // word's rarity was measured: M1 at 2k 78.3 → 75.4 %, the other budgets unchanged.
        const rarity = Math.log(1 + (count - postings.length + 0.5) / (postings.length + 0.5));
        const numerator = rarity * neighbour.similarity * (K1 + 1);
        const constant = neighbour.similarity + base;
        // Postings are in message order: the newest come last. The cap counts the messages the
        // caller may be shown: those it skips (already in its context, the newest as a rule) are
        // passed over, so a word's older occurrences are still reached.
        let counted = 0;
        let at = postings.length - 1;
        for (; at >= 0 && counted < MAX_POSTINGS; at--) {
          const row = postings[at] as number;
          if (skip?.(seqs[row] as number)) continue;
          counted++;
          const score = numerator / (constant + lengthWeight * (lengths[row] as number));
          const previous = termBest[row] as number;
          if (previous === 0) touched[touchedCount++] = row;
          if (score > previous) termBest[row] = score;
        }
        // A word only messages in the caller's context hold cannot make a shown message complete.
        if (exact && counted > 0) present.push(postings);
      }
      for (let index = 0; index < touchedCount; index++) {
        const row = touched[index] as number;
        const termScore = termBest[row] as number;
        termBest[row] = 0;
        if (!(termScore > 0)) continue;
        if (totals[row] === 0) scored[scoredCount++] = row;
        totals[row] = (totals[row] as number) + termScore;
      }
    }
    return { scored: scoredCount, present };
  }

  /**
   * Of `words` (a full-text search's), those `search(query)` does not cover fully: a code or path
   * (split here into words), a word it leaves out (past the rarest `MAX_QUERY_TERMS`), a word no
   * indexed message holds (or only past the text `indexedWords` reads), and a word the table has no vector for
   * (only the full-text index's stemming finds its other forms). A function word is covered:
   * neither search uses it.
   */
  uncoveredWords(query: string, words: readonly string[], queryWords = MAX_QUERY_TERMS): string[] {
    const searched = new Set(this.searchedTerms(query, queryWords));
    return words.filter((word) => {
      const plain = plainWord(word);
      if (plain === undefined) return true;
      const term = termOf(plain);
      if (term === undefined) return false;
      const id = this.vocabulary.get(term);
      // A word in the vocabulary has a posting: it is added with the message that holds it.
      return !searched.has(term) || id === undefined || this.rowOfWord[id] === -1;
    });
  }

  /**
   * The terms a search for `query` scores: its rarest plain words. The last query's are kept: the
   * evidence of a prompt asks twice (`search`, then `uncoveredWords`), and reading a pasted log's
   * words took 0.4 ms each time.
   */
  private searchedTerms(query: string, queryWords: number): string[] {
    const last = this.lastSearched;
    if (last?.query === query && last.queryWords === queryWords) return last.terms;
    const most = Math.max(0, Math.floor(queryWords));
    const terms = this.rarestFirst(queryWordsOf(query), most).slice(0, most);
    this.lastSearched = { query, queryWords, terms };
    return terms;
  }

  /**
   * `words` with the least frequent first, by their rank in the table (its files list the most
   * frequent first); as given when there are no more than `most`.
   */
  private rarestFirst(words: string[], most: number): string[] {
    if (words.length <= most) return words;
    // Each word's rank looked up once, not per comparison (a pasted log has hundreds of words).
    const ranked = words.map((word) => ({
      word,
      rank: this.table.rows.get(word) ?? Number.MAX_SAFE_INTEGER,
    }));
    ranked.sort((left, right) => right.rank - left.rank);
    return ranked.map((entry) => entry.word);
  }

  /** The word itself (when the session uses it) and its nearest session words by meaning. */
  private neighboursOf(word: string): Neighbour[] {
    let list = this.neighbourCache.get(word);
    if (list === undefined) {
      list = { neighbours: [], scannedWords: 0, scannedRows: 0 };
      if (this.neighbourCache.size >= 512) this.neighbourCache.clear();
      this.neighbourCache.set(word, list);
    }
    if (list.scannedWords < this.rowOfWord.length) this.extend(word, list);
    return list.neighbours;
  }

  /** Adds the neighbours among vocabulary words added since the list was last extended. */
  private extend(word: string, list: NeighbourList): void {
    const fromWord = list.scannedWords;
    const fromRow = list.scannedRows;
    const toWord = this.rowOfWord.length;
    const toRow = this.vectors.count;
    const own = this.vocabulary.get(word);
    const before = list.neighbours.length;
    const query = this.table.rows.get(word);
    if (query !== undefined) {
      const ownRow = own === undefined ? -1 : (this.rowOfWord[own] as number);
      const similarities = this.vectors.dots(unitRowOf(this.table, query), fromRow, toRow);
      const { neighbours } = list;
      // A full list only takes words nearer than its weakest.
      let bar = this.minSimilarity;
      if (neighbours.length >= MAX_NEIGHBOURS)
        bar = Math.max(bar, (neighbours[neighbours.length - 1] as Neighbour).similarity);
      // Only the words the table knows have a row: the scan never meets the others.
      for (const { row, similarity } of this.nearest.select(similarities, fromRow, bar, ownRow))
        neighbours.push({ word: this.vectorWords[row] as number, similarity });
    }
    // Only now: a scan that threw is tried again by the next search, and adds the word once.
    if (own !== undefined && own >= fromWord) list.neighbours.unshift({ word: own, similarity: 1 });
    list.scannedWords = toWord;
    list.scannedRows = toRow;
    if (list.neighbours.length === before) return;
    keepNearest(list.neighbours, MAX_NEIGHBOURS);
  }

  /**
   * Adds a page whole or not at all: a failure midway (a word's vector that memory cannot take)
   * drops the page's rows again, so the page read again next time is not indexed twice. Words it
   * added to the vocabulary stay, without postings until then.
   */
  protected addPage(page: readonly StoredMessage[]): void {
    const texts = page.map(readableText);
    const rowsBefore = this.rows.count;
    const lengthBefore = this.totalLength;
    try {
      for (const [index, stored] of page.entries()) this.add(stored, texts[index] ?? "");
    } catch (error) {
      this.rows.truncate(rowsBefore);
      this.lengths.length = rowsBefore;
      this.totalLength = lengthBefore;
      for (const postings of this.postings) {
        while ((postings[postings.length - 1] ?? -1) >= rowsBefore) postings.pop();
      }
      throw error;
    }
  }

  /** The heads of the indexed messages among `seqs` (see `RowHeads`); seqs not indexed are left out. */
  heads(seqs: readonly number[]): StoredMessageHead[] {
    return this.rows.heads(seqs);
  }

  private add(stored: StoredMessage, text: string): void {
    const row = this.rows.push(stored);
    // A host's housekeeping holds no word to search by: it would take an evidence candidate's
    // place, to be left out of the block afterwards.
    const words = isStoredHousekeeping(stored) ? [] : indexedWords(text);
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
      this.rowOfWord.push(-1);
      return id;
    }
    const row = this.vectors.count;
    // Appended first: a failed append leaves no word pointing at a row that does not exist.
    this.vectors.append(unitRowOf(this.table, tableRow));
    this.rowOfWord.push(row);
    this.vectorWords.push(id);
    return id;
  }
}
