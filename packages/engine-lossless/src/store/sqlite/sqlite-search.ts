/**
 * Full-text search of one session's messages and summaries (FTS5, BM25). Message search brings
 * the deferred index up to date first (`MessageSearchIndex.catchUp`), so it never misses a stored
 * message; summaries are indexed in the compaction's own transaction. Terms too common to tell
 * messages apart are left out of message search while rarer ones remain (`term-selection.ts`).
 * Terms that make no match expression, or an unknown session, find nothing. Methods are
 * synchronous and run inside the store's error handling (`SqliteLosslessStore.run`).
 *
 * A search with `maxRanked` (the per-request evidence of assembly) ranks a bounded number of
 * matches, so its cost does not grow with the store: BM25 scores every match it ranks (a
 * document-size lookup each), and in a long session even the rare terms of a prompt have
 * hundreds of matches. When the kept terms have more matches than `maxRanked` in all, each term is
 * ranked on its own over its newest matches, the rarest terms first and in full while the share
 * lasts, and a message's score is the sum of its terms' scores: FTS5's BM25 of an OR query is the
 * sum of its phrases' scores, each phrase's weight counted over the whole index, so a message
 * whose matches were all ranked scores exactly what the one OR query gives it. A term of several
 * words (a code, a path, a pasted log line) is not ranked by FTS5: matching it costs a pass over
 * every place its words meet, and counting and ranking it took two more, so its newest matches,
 * read once as row ids, each score its IDF (see `scorePhrase`). Row ids become seqs through the session's
 * runs of consecutive ids (`SessionRowRuns`), not a join: a message row with its JSON inline is a
 * page of its own, and reading one per match cost more than ranking it.
 */
import type Database from "better-sqlite3";
import type { MessageSearchOptions, SearchHit, StoredMessageHead } from "../store.js";
import { matchExpression } from "./match-expression.js";
import type { MessageSearchIndex } from "./search-index.js";
import { findSession } from "./session-rows.js";
import type { Statements } from "./statements.js";
import type { CountedTerm, TermSelection } from "./term-selection.js";

interface RankedRow<Key> {
  key: Key;
  rank: number;
}

const BOUNDED_SQL = {
  // Newest first: FTS5 walks the index in rowid order and the caller stops after its share; an
  // ORDER BY on the rank instead would score every match before sorting. No join: a message row
  // is a page of its own (its JSON is inline), so reading one per match costs more than ranking
  // it; `SessionRowRuns` turns row ids into seqs instead.
  newestRanked: `SELECT rowid AS key, bm25(messages_fts) AS rank FROM messages_fts
       WHERE messages_fts MATCH ? AND rowid >= ? ORDER BY rowid DESC`,
  // Every match, for terms with few matches in all; ranked by the caller.
  allRanked: `SELECT rowid AS key, bm25(messages_fts) AS rank FROM messages_fts
       WHERE messages_fts MATCH ? AND rowid >= ?`,
  // Columns before `json` only: SQLite then reads no overflow page of a long message.
  messageHeads: `SELECT seq, role, created_at AS createdAt, tokens FROM messages
       WHERE session_ref = ? AND seq IN (SELECT value FROM json_each(?)) ORDER BY seq`,
  // Seqs of the session's messages among row ids, newest first (for a scattered session). The row
  // ids are looked up one by one: on `session_ref` (the unary plus turns its index off) SQLite chose
  // to walk every message of the session instead.
  seqsOfIds: `SELECT seq FROM messages
       WHERE +session_ref = ? AND id IN (SELECT value FROM json_each(?)) ORDER BY id DESC`,
  // The same with the join, for a session whose row ids are too scattered to keep as runs.
  newestRankedJoined: `SELECT m.seq AS seq, bm25(messages_fts) AS rank FROM messages_fts
       JOIN messages m ON m.id = messages_fts.rowid
       WHERE messages_fts MATCH ? AND messages_fts.rowid >= ? AND m.session_ref = ?
       ORDER BY messages_fts.rowid DESC`,
};

export class SqliteSearch {
  private readonly bounded: { [Name in keyof typeof BOUNDED_SQL]: Database.Statement };
  private readonly runs: SessionRowRuns;

  constructor(
    database: Database.Database,
    private readonly statements: Statements,
    private readonly index: MessageSearchIndex,
    private readonly termSelection: TermSelection,
  ) {
    this.bounded = {
      messageHeads: database.prepare(BOUNDED_SQL.messageHeads),
      allRanked: database.prepare(BOUNDED_SQL.allRanked),
      seqsOfIds: database.prepare(BOUNDED_SQL.seqsOfIds),
      newestRanked: database.prepare(BOUNDED_SQL.newestRanked),
      newestRankedJoined: database.prepare(BOUNDED_SQL.newestRankedJoined),
    };
    this.runs = new SessionRowRuns(database);
  }

  /** Message seqs, best first; a higher score is a better match. */
  messages(
    sessionId: string,
    terms: readonly string[],
    limit: number,
    options: MessageSearchOptions = {},
  ): SearchHit<number>[] {
    const session = findSession(this.statements, sessionId);
    if (session === undefined) return [];
    this.index.catchUpIfFew(options.indexAtMost ?? Number.POSITIVE_INFINITY);
    const { maxRanked } = options;
    const skip = options.skip ?? (() => false);
    if (maxRanked === undefined)
      return this.rankAll(session.id, this.termSelection.select(terms), limit, options.skip);
    // Read once: term selection measures commonness by it, and the phrases' IDF counts with it.
    const documents = this.termSelection.storeSize();
    const counted = this.termSelection
      .selectCounted(terms, documents, maxRanked)
      .filter((entry) => entry.matches > 0);
    const runs = this.runs.of(session.id, session.next_seq - 1);
    if (runs === undefined || counted.length === 0) return [];
    const bounds: Bounds = { maxRanked, skip };
    const scores = new Map<number, number>();
    const words = counted.filter((entry) => entry.newestIds === undefined);
    const phrases = counted.filter((entry) => entry.newestIds !== undefined);
    for (const phrase of phrases) this.scorePhrase(session.id, runs, phrase, documents, bounds, scores);
    const matches = words.reduce((sum, entry) => sum + entry.matches, 0);
    if (runs.scattered || matches > maxRanked || words.some((entry) => entry.capped)) {
      this.rankNewest(session.id, runs, words, bounds, scores);
    } else if (words.length > 0) {
      this.rankFew(runs, words, skip, scores);
    }
    return bestFirst(scores, limit);
  }

  /** The heads of the session's messages with these seqs, in seq order. */
  messageHeads(sessionId: string, seqs: readonly number[]): StoredMessageHead[] {
    const session = findSession(this.statements, sessionId);
    if (session === undefined || seqs.length === 0) return [];
    return this.bounded.messageHeads.all(session.id, JSON.stringify(seqs)) as StoredMessageHead[];
  }

  /** Summary ids, best first, matched on their text or their anchors. */
  summaries(
    sessionId: string,
    terms: readonly string[],
    field: "content" | "anchors",
    limit: number,
  ): SearchHit<string>[] {
    const expression = matchExpression(terms, field);
    const session = findSession(this.statements, sessionId);
    if (expression === undefined || session === undefined) return [];
    const rows = this.statements.searchSummaries.all(expression, session.id, limit) as RankedRow<string>[];
    return rows.map(toHit);
  }

  /** Every match ranked by FTS5, best first, the first `limit` that `skip` lets through. */
  private rankAll(
    sessionRef: number,
    terms: readonly string[],
    limit: number,
    skip: ((seq: number) => boolean) | undefined,
  ): SearchHit<number>[] {
    const expression = matchExpression(terms);
    if (expression === undefined || limit <= 0) return [];
    if (skip === undefined)
      return (this.statements.searchMessages.all(expression, sessionRef, limit) as RankedRow<number>[]).map(
        toHit,
      );
    const hits: SearchHit<number>[] = [];
    // LIMIT -1 is no limit: skipped matches must not take the places of the ones after them.
    for (const row of this.statements.searchMessages.iterate(expression, sessionRef, -1) as Iterable<
      RankedRow<number>
    >) {
      const hit = toHit(row);
      if (skip(hit.key)) continue;
      hits.push(hit);
      if (hits.length === limit) break;
    }
    return hits;
  }

  /** Few matches in all: one query ranks every match, as a search without `maxRanked` does. */
  private rankFew(
    runs: Runs,
    words: readonly CountedTerm[],
    skip: (seq: number) => boolean,
    scores: Map<number, number>,
  ): void {
    const expression = matchExpression(words.map((entry) => entry.term)) as string;
    const rows = this.bounded.allRanked.iterate(expression, runs.firstIds[0]) as Iterable<RankedRow<number>>;
    for (const row of mapSeqs(runs, rows)) {
      if (!skip(row.seq)) scores.set(row.seq, (scores.get(row.seq) ?? 0) - row.rank);
    }
  }

  /**
   * About `maxRanked` matches ranked in all, shared out rarest term first (see the file comment),
   * added to `scores`.
   */
  private rankNewest(
    sessionRef: number,
    runs: Runs,
    counted: readonly CountedTerm[],
    bounds: Bounds,
    scores: Map<number, number>,
  ): void {
    const byRarity = [...counted].sort((left, right) => left.matches - right.matches);
    let left = bounds.maxRanked;
    for (const [index, entry] of byRarity.entries()) {
      const expression = matchExpression([entry.term]);
      if (expression === undefined) continue;
      const share = Math.max(1, Math.floor(left / (byRarity.length - index)));
      const rows = this.newest(expression, sessionRef, runs, share, bounds.skip);
      left -= rows.length;
      for (const row of rows) scores.set(row.seq, (scores.get(row.seq) ?? 0) - row.rank);
    }
  }

  /**
   * Adds a long phrase's newest `maxRanked` matches in the session to `scores`, each with what
   * BM25 gives one occurrence in a message of average length: the phrase's IDF, computed as FTS5
   * does. Matching the phrase again to have FTS5 rank it would cost two more passes over every
   * place its words meet (see `CountedTerm.newestIds`).
   */
  private scorePhrase(
    sessionRef: number,
    runs: Runs,
    phrase: CountedTerm,
    documents: number,
    bounds: Bounds,
    scores: Map<number, number>,
  ): void {
    const ids = phrase.newestIds ?? [];
    const idf = Math.max(1e-6, Math.log((documents - phrase.matches + 0.5) / (phrase.matches + 0.5)));
    let seqs: number[];
    if (runs.scattered) {
      const found = this.bounded.seqsOfIds.all(sessionRef, JSON.stringify(ids)) as Array<{ seq: number }>;
      seqs = found.map((row) => row.seq);
    } else {
      seqs = ids.map((id) => seqOf(runs, id)).filter((seq): seq is number => seq !== undefined);
    }
    const wanted = seqs.filter((seq) => !bounds.skip(seq)).slice(0, bounds.maxRanked);
    for (const seq of wanted) scores.set(seq, (scores.get(seq) ?? 0) + idf);
  }

  /** The session's newest `count` matches of `expression` that `skip` leaves, ranked. */
  private newest(
    expression: string,
    sessionRef: number,
    runs: Runs,
    count: number,
    skip: (seq: number) => boolean,
  ): Array<{ seq: number; rank: number }> {
    const found: Array<{ seq: number; rank: number }> = [];
    const firstId = runs.firstIds[0] as number;
    const rows = runs.scattered
      ? (this.bounded.newestRankedJoined.iterate(expression, firstId, sessionRef) as Iterable<{
          seq: number;
          rank: number;
        }>)
      : mapSeqs(runs, this.bounded.newestRanked.iterate(expression, firstId) as Iterable<RankedRow<number>>);
    for (const row of rows) {
      if (skip(row.seq)) continue;
      found.push(row);
      if (found.length >= count) break;
    }
    return found;
  }
}

/** The rows of the session's messages among `rows` (row ids), with their seqs. */
function* mapSeqs(runs: Runs, rows: Iterable<RankedRow<number>>): Generator<{ seq: number; rank: number }> {
  for (const row of rows) {
    const seq = seqOf(runs, row.key);
    if (seq !== undefined) yield { seq, rank: row.rank };
  }
}

/** How much a bounded search ranks, and what it passes over. */
interface Bounds {
  maxRanked: number;
  skip: (seq: number) => boolean;
}

/** The `limit` best scores as hits, ties to the newer message. */
function bestFirst(scores: ReadonlyMap<number, number>, limit: number): SearchHit<number>[] {
  return [...scores]
    .map(([key, score]) => ({ key, score }))
    .sort((left, right) => right.score - left.score || right.key - left.key)
    .slice(0, limit);
}

/** BM25 ranks lower is better; hits score higher is better. */
function toHit<Key>(row: RankedRow<Key>): SearchHit<Key> {
  return { key: row.key, score: -row.rank };
}

/** A session split into more runs than this is "scattered": its searches join `messages` instead. */
const MAX_RUNS = 64;
/** Sessions whose runs are kept, the most recently searched. */
const KEPT_SESSIONS = 16;

/**
 * Where a session's messages sit among the row ids, as runs of consecutive row ids with
 * consecutive seqs. Each insert takes the highest row id yet, so within a session row ids grow
 * with seqs, and a session written while no other was is one run.
 */
interface Runs {
  /** Per run, in seq order: its first row id, its first seq and its length. */
  firstIds: number[];
  firstSeqs: number[];
  lengths: number[];
  /** The newest seq the runs cover. */
  lastSeq: number;
  /** Too many runs to keep: only `firstIds[0]` (the first message's row id) is set. */
  scattered: boolean;
}

/**
 * Finds and keeps sessions' runs (`Runs`) with probes of the (session, seq) index: a range whose
 * row ids are as far apart as its seqs is one run (row ids grow strictly with seqs), any other
 * range is split in two. A session of a few runs costs a few probes, and a search after new
 * messages only looks at the new ones. Kept runs are checked at both ends before use, so a session
 * deleted and written again is read afresh.
 */
class SessionRowRuns {
  private readonly sessions = new Map<number, Runs>();
  private readonly idAtSeq: Database.Statement;

  constructor(database: Database.Database) {
    this.idAtSeq = database.prepare("SELECT id FROM messages WHERE session_ref = ? AND seq = ?").pluck();
  }

  /** The runs of the session up to `lastSeq`, or undefined when it has no message. */
  of(sessionRef: number, lastSeq: number): Runs | undefined {
    let runs = this.sessions.get(sessionRef);
    this.sessions.delete(sessionRef);
    if (runs !== undefined && !this.stillHolds(sessionRef, runs)) runs = undefined;
    if (runs === undefined) {
      const firstId = this.idAt(sessionRef, 1);
      if (firstId === undefined || lastSeq < 1) return undefined;
      runs = { firstIds: [firstId], firstSeqs: [1], lengths: [1], lastSeq: 1, scattered: false };
    }
    if (!runs.scattered && runs.lastSeq < lastSeq) this.extend(sessionRef, runs, lastSeq);
    this.sessions.set(sessionRef, runs);
    if (this.sessions.size > KEPT_SESSIONS) this.sessions.delete(this.sessions.keys().next().value as number);
    return runs;
  }

  private stillHolds(sessionRef: number, runs: Runs): boolean {
    if (this.idAt(sessionRef, 1) !== runs.firstIds[0]) return false;
    return runs.scattered || this.idAt(sessionRef, runs.lastSeq) === lastIdOf(runs);
  }

  /** Adds seqs after `runs.lastSeq` up to `lastSeq`, splitting ranges until each is one run. */
  private extend(sessionRef: number, runs: Runs, lastSeq: number): void {
    const lastId = this.idAt(sessionRef, lastSeq);
    const pending: Array<[number, number, number, number]> = [];
    if (lastId !== undefined) pending.push([runs.lastSeq, lastIdOf(runs), lastSeq, lastId]);
    else runs.scattered = true;
    // Depth first, left range before right, so runs are added in seq order.
    while (pending.length > 0 && !runs.scattered) {
      const [fromSeq, fromId, toSeq, toId] = pending.pop() as [number, number, number, number];
      if (toId - fromId < toSeq - fromSeq) {
        // Row ids not growing with seqs (never written so): the join is always right.
        runs.scattered = true;
      } else if (toId - fromId === toSeq - fromSeq) {
        // `fromSeq` ends the last run, so the whole range continues it.
        runs.lengths[runs.lengths.length - 1] = (runs.lengths.at(-1) as number) + (toSeq - fromSeq);
      } else if (toSeq - fromSeq === 1) {
        runs.firstIds.push(toId);
        runs.firstSeqs.push(toSeq);
        runs.lengths.push(1);
        if (runs.lengths.length > MAX_RUNS) runs.scattered = true;
      } else {
        const middleSeq = Math.floor((fromSeq + toSeq) / 2);
        const middleId = this.idAt(sessionRef, middleSeq);
        if (middleId === undefined) runs.scattered = true;
        else pending.push([middleSeq, middleId, toSeq, toId], [fromSeq, fromId, middleSeq, middleId]);
      }
    }
    runs.lastSeq = lastSeq;
    if (runs.scattered) {
      runs.firstIds.length = 1;
      runs.firstSeqs.length = 1;
      runs.lengths.length = 1;
    }
  }

  private idAt(sessionRef: number, seq: number): number | undefined {
    return this.idAtSeq.get(sessionRef, seq) as number | undefined;
  }
}

function lastIdOf(runs: Runs): number {
  return (runs.firstIds.at(-1) as number) + (runs.lengths.at(-1) as number) - 1;
}

/** The seq of the message with row id `id` when it belongs to the session, else undefined. */
function seqOf(runs: Runs, id: number): number | undefined {
  let low = 0;
  let high = runs.firstIds.length - 1;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if ((runs.firstIds[middle] as number) <= id) low = middle;
    else high = middle - 1;
  }
  const offset = id - (runs.firstIds[low] as number);
  if (offset < 0 || offset >= (runs.lengths[low] as number)) return undefined;
  return (runs.firstSeqs[low] as number) + offset;
}
