/**
 * Which search terms are worth ranking by. BM25 gives a term that occurs in a large share of the
 * messages almost no weight, yet ranking has to score every message it occurs in: at 50k messages
 * a query with one such word costs tens of milliseconds. So each term's document count is
 * estimated first, counting at most `cap` matches (FTS5 walks matches in rowid order without
 * ranking, which is cheap and stops at the limit), and terms reaching the cap are left out while
 * rarer terms remain. A query of common terms only keeps its first few: every one of them reached
 * the cap, so which is least common is not known without the full counts this avoids.
 *
 * A phrase (a pasted path, timestamp or id) costs more to match than a word: FTS5 walks the match
 * list of each of its words. `selectCounted` counts a phrase's words only back to a rare one,
 * matches a few phrases per query, the most selective first, and matches a long one by its rarest
 * run of words when that run is selective (`phrases.ts`).
 */
import type Database from "better-sqlite3";
import { matchExpression } from "./match-expression.js";
import {
  byBound,
  isPhrase,
  MAX_NARROWED_MATCHES,
  MAX_PHRASE_WORDS,
  NARROWABLE,
  PhraseBudget,
  type PhraseRun,
  type PhraseToMatch,
  rarestRun,
  WORD_RUN,
} from "./phrases.js";

/** Terms in at least this share of the store's messages are "common". */
const COMMON_SHARE = 0.01;
/** Below this many matches a term is never common, whatever the store's size. */
const MIN_CAP = 200;
/** Kept from a query whose terms are all common. */
const KEEP_WHEN_ALL_COMMON = 2;

// In the index's own order: the count is the same in any order, and FTS5 walks a term's matches
// newest first only after reading its whole match list (measured at 50k messages, 322 prompt
// words: 69–72 ms newest first, 38–48 ms in index order). A term reaching the cap is left out,
// so its newest matches are never read.
const COUNT_SQL = `SELECT count(*) AS count FROM (
  SELECT rowid FROM messages_fts WHERE messages_fts MATCH ? AND rowid > ? AND rowid <= ? LIMIT ?)`;
const NEWEST_IDS_SQL =
  "SELECT rowid FROM messages_fts WHERE messages_fts MATCH ? ORDER BY rowid DESC LIMIT ?";
// Every match, when there are fewer than the limit: in index order a phrase costs about half as
// much as newest first (measured at 50k messages: 0.2–0.4 ms against 0.4–0.5 ms for a run of four
// words, 1.7 ms against 3.2 ms for a 13-word path), and the set is the same.
const ALL_IDS_SQL = "SELECT rowid FROM messages_fts WHERE messages_fts MATCH ? LIMIT ?";
/** Counts kept for `selectCounted`, the most recently used. */
const KEPT_COUNTS = 4_096;
/** A term kept as common is counted again once the store has grown by this share. */
const COUNT_STALE_GROWTH = 0.05;
// The index's watermark, not the highest row id: counts cover indexed messages only, and a search
// may run while a bulk import waits to be indexed (`indexAtMost`); counted up to the highest id,
// a kept count would stand for messages it never saw, and never count them later.
const SIZE_SQL = `SELECT coalesce((SELECT indexed_to FROM index_watermarks WHERE name = 'messages'), 0) AS size`;

/** A selected term and its matches in the whole store, counted up to `cap` (so `matches ≤ cap`). */
export interface CountedTerm {
  term: string;
  matches: number;
  /** The count stopped at the cap: the term has at least `matches` matches, maybe more. */
  capped: boolean;
  /**
   * For a term of `PHRASE_WORDS` words or more (from `selectCounted`): the row ids of its
   * newest matches, newest first, read in place of a count, since matching such a phrase is the
   * costly part (FTS5 checks positions wherever its words meet) and its ids are all it needs.
   */
  newestIds?: number[];
}

/**
 * A term being selected: its place in the query, whether it is common only by its words, and
 * whether it was left unmatched as one phrase too many (see `MAX_MATCHED_PHRASES`).
 */
type Counted = CountedTerm & { index: number; assumedCommon?: boolean; passedOver?: boolean };

function isRare(entry: CountedTerm): boolean {
  return !entry.capped && entry.matches > 0;
}

interface KeptCount {
  /** Matches among messages up to row id `countedTo`: all of them, unless `capped`. */
  matches: number;
  /** Counting stopped at the cap of the time: the term has at least `matches`, maybe more. */
  capped: boolean;
  countedTo: number;
  /** The store size when the term was last counted from the start. */
  countedAt: number;
}

export class TermSelection {
  private readonly count: Database.Statement;
  private readonly newestIds: Database.Statement;
  private readonly allIds: Database.Statement;
  private readonly size: Database.Statement;
  /** Per term, its count for `selectCounted`. */
  private readonly kept = new Map<string, KeptCount>();

  constructor(database: Database.Database) {
    this.count = database.prepare(COUNT_SQL);
    this.newestIds = database.prepare(NEWEST_IDS_SQL).pluck();
    this.allIds = database.prepare(ALL_IDS_SQL).pluck();
    this.size = database.prepare(SIZE_SQL);
  }

  /** `terms` without the common ones (see the file comment), in their given order. */
  select(terms: readonly string[]): string[] {
    if (terms.length <= 1) return [...terms];
    const storeSize = this.storeSize();
    const cap = capFor(storeSize);
    if (storeSize <= cap) return [...terms];
    return this.selectFrom(this.counted(terms, cap, storeSize)).map((entry) => entry.term);
  }

  /**
   * What `select` keeps, with each kept term's match count, for callers that share out ranking
   * work by how many matches each term has. Counts even a single term and in a small store, which
   * `select` skips (it keeps them all the same). Matches a few phrases at most (`MAX_MATCHED_PHRASES`).
   *
   * A caller that ranks at most `rankable` matches (the per-request search, `maxRanked`) gets a
   * term with that many or more (and at least `MIN_CAP`) counted as common: it could not rank them
   * all, and counting up to a hundredth of a large store made that search grow with the session (a
   * word of a pasted log counted up to 500 matches at 50,000 messages; the bench's slowest prompts
   * there took 1 to 8 ms less in the full-text search with the cap at 200).
   */
  selectCounted(
    terms: readonly string[],
    storeSize = this.storeSize(),
    rankable = Number.POSITIVE_INFINITY,
  ): CountedTerm[] {
    const cap = Math.max(
      MIN_CAP,
      Math.min(capFor(storeSize), Number.isFinite(rankable) ? rankable : Number.POSITIVE_INFINITY),
    );
    const phrases: PhraseToMatch[] = [];
    const counted = terms.map((term, index): Counted => {
      const words = term.match(WORD_RUN) ?? [];
      if (isPhrase(term, words)) return this.countedPhrase({ term, index, words }, cap, storeSize, phrases);
      const matches = this.keptMatches(term, cap, storeSize);
      return { term, index, matches, capped: matches >= cap };
    });
    const budget = new PhraseBudget();
    for (const phrase of byBound(phrases)) {
      if (budget.spent()) break;
      const run = this.narrowed(phrase, cap, storeSize);
      counted[phrase.index] = {
        ...budget.paid(this.phraseIds(phrase.term, cap, phrase.bound, run)),
        index: phrase.index,
      };
    }
    // With nothing rare found, a phrase taken as common may be rare after all: matched whole,
    // within what is left of the budget (a run of common words would only find the newest of many).
    if (!counted.some(isRare) && counted.some((entry) => entry.assumedCommon === true)) {
      return this.selectFrom(
        counted.map((entry) => {
          if (entry.assumedCommon !== true) return entry;
          // Not matched: without its ids it would be ranked as a word, the costly phrase match.
          if (budget.spent()) return { ...entry, passedOver: true };
          const matched = this.phraseIds(entry.term, cap, Number.POSITIVE_INFINITY);
          return { ...budget.paid(matched), index: entry.index };
        }),
      );
    }
    return this.selectFrom(counted);
  }

  /**
   * A phrase term as first counted: common when every word is (taken so without matching it: that
   * match is the costly one, and a prompt's pasted paths are mostly such phrases), matching nothing
   * when a word matches nothing, else passed over until `selectCounted` matches it (added to
   * `phrases`).
   */
  private countedPhrase(
    phrase: { term: string; index: number; words: readonly string[] },
    cap: number,
    storeSize: number,
    phrases: PhraseToMatch[],
  ): Counted {
    const { term, index, words } = phrase;
    const counts = this.wordCounts(words, cap, storeSize);
    // Every word was counted unless a rare one was found.
    const fewest = Math.min(...counts.filter((count) => count !== undefined));
    if (fewest >= cap) return { term, index, matches: cap, capped: true, assumedCommon: true };
    const exact = NARROWABLE.test(term);
    // A word no message has (counted afresh, see `keptMatches`): the phrase matches nothing.
    if (exact && fewest === 0) return { term, index, matches: 0, capped: false };
    phrases.push({ term, index, words, counts, bound: exact ? fewest : Number.POSITIVE_INFINITY });
    return { term, index, matches: 0, capped: false, passedOver: true };
  }

  /**
   * Counts of a phrase's `words`, from the last word back to its first rare one; the words before
   * it are left uncounted (undefined) until the phrase is matched (see `narrowed`). A phrase matches
   * no more messages than any of its words, so one rare word bounds it, and a pasted path,
   * timestamp or id ends with its most particular part (file name, line number, milliseconds).
   * Each word counted fresh costs 0.05 to 0.4 ms at 50k messages, and a pasted log line has dozens
   * in phrases that are then not matched (`MAX_MATCHED_PHRASES`).
   */
  private wordCounts(words: readonly string[], cap: number, storeSize: number): Array<number | undefined> {
    const counts: Array<number | undefined> = words.map(() => undefined);
    for (let at = words.length - 1; at >= 0; at--) {
      const matches = this.keptMatches(words[at] as string, cap, storeSize);
      counts[at] = matches;
      if (matches < cap) break;
    }
    return counts;
  }

  /**
   * A phrase term with the row ids of its newest matches, up to `cap` (see `CountedTerm`); matched
   * by `run` (see `narrowed`) when that run is selective (at most `MAX_NARROWED_MATCHES` matches,
   * all of them ranked), else whole. `bound` is at least its number of matches, when known.
   */
  private phraseIds(term: string, cap: number, bound: number, run?: PhraseRun): CountedTerm {
    if (run !== undefined) {
      const newestIds = this.matchIds(run.text, cap, run.fewest);
      if (newestIds.length <= MAX_NARROWED_MATCHES)
        return { term, matches: newestIds.length, capped: false, newestIds };
    }
    const newestIds = this.matchIds(term, cap, bound);
    return { term, matches: newestIds.length, capped: newestIds.length >= cap, newestIds };
  }

  /**
   * The row ids of the newest `cap` matches of `phrase`, newest first. When fewer than `cap` are
   * expected (`bound`), every match is read in the index's cheaper order and turned round; should
   * that read reach the cap after all (a kept count that fell behind), it is read newest first.
   */
  private matchIds(phrase: string, cap: number, bound: number): number[] {
    const expression = matchExpression([phrase]);
    if (bound < cap) {
      const ids = this.allIds.all(expression, cap) as number[];
      if (ids.length < cap) return ids.reverse();
    }
    return this.newestIds.all(expression, cap) as number[];
  }

  /**
   * For a phrase of more than `MAX_PHRASE_WORDS` words (a pasted path, URL or id) with a common
   * word among rarer ones, its run of that many words with the fewest matches, the later run among
   * equals (a path ends with its file name); else undefined. FTS5 matches a phrase by walking the
   * match list of every word in it, so a path's common words (`users`, `src`) cost milliseconds each
   * (a 13-word path at 50k messages: 3.9 ms; its last three words: 0.5 ms), while its rare words
   * decide which messages match. The run matches every message the whole phrase does, and those
   * that share its rarest part, ranked alike. Counts the words `wordCounts` left uncounted.
   */
  private narrowed(phrase: PhraseToMatch, cap: number, storeSize: number): PhraseRun | undefined {
    const { term, words } = phrase;
    if (words.length <= MAX_PHRASE_WORDS || !NARROWABLE.test(term)) return undefined;
    const counts = phrase.counts.map(
      (count, at) => count ?? this.keptMatches(words[at] as string, cap, storeSize),
    );
    return rarestRun(words, counts, cap);
  }

  /** The row id up to which every message is indexed: the store's size, as far as commonness goes. */
  storeSize(): number {
    return (this.size.get() as { size: number }).size;
  }

  private counted(terms: readonly string[], cap: number, storeSize: number): Counted[] {
    return terms.map((term, index) => {
      const matches = this.keptMatches(term, cap, storeSize);
      return { term, index, matches, capped: matches >= cap };
    });
  }

  /**
   * The rare terms, else the first few that match at all (all reached the cap: their order is
   * all that tells them apart). A term that matches nothing is not rare: it must not leave the
   * others out. Phrases passed over (one too many to match) are left out.
   */
  private selectFrom(counted: readonly Counted[]): CountedTerm[] {
    const matched = counted.filter((entry) => entry.passedOver !== true);
    const rare = matched.filter(isRare);
    const kept =
      rare.length > 0 ? rare : matched.filter((entry) => entry.matches > 0).slice(0, KEEP_WHEN_ALL_COMMON);
    return kept.map(({ index: _index, assumedCommon: _assumed, passedOver: _passed, ...entry }) => entry);
  }

  /**
   * `term`'s matches up to `cap`, kept across calls: a prompt's words recur in the next prompts,
   * and a count read cold costs more than the ranking that follows. A kept count is brought up to
   * date by counting only the messages indexed since (`storeSize` is the index's watermark: every
   * message up to it is indexed, none above it); a term found common (at the cap asked, or at the
   * store's share when it was counted: the per-request search's cap is lower, see `selectCounted`)
   * stays common, uncounted, until the store has grown by `COUNT_STALE_GROWTH`; a count that
   * stopped at a lower cap than asked is counted again; and this store's deletes forget every count
   * (`forgetCounts`). A count can still fall behind: another process deletes the newest messages
   * and their row ids are used again. That shifts which terms are ranked and which phrases are
   * tried first, never which messages a term matches: a count of 0 is counted afresh, and phrase
   * ids never depend on counts (`matchIds`).
   */
  private keptMatches(term: string, cap: number, storeSize: number): number {
    const kept = this.kept.get(term);
    this.kept.delete(term);
    let entry: KeptCount;
    // Common at this cap, or at the store's share when it was counted (the share rises with the
    // store; the per-request search's cap is lower), exactly counted or not.
    const stillCommon =
      kept !== undefined &&
      kept.matches >= Math.min(cap, capFor(kept.countedAt)) &&
      storeSize <= kept.countedAt * (1 + COUNT_STALE_GROWTH);
    // A count of 0 is never kept: it is cheap to count again, and one that fell behind would
    // leave the term out of every search (see above).
    if (
      kept === undefined ||
      kept.matches === 0 ||
      storeSize < kept.countedTo ||
      (kept.capped && !stillCommon)
    ) {
      entry = { ...this.countAbove(term, 0, storeSize, cap), countedTo: storeSize, countedAt: storeSize };
    } else if (stillCommon) {
      entry = kept;
    } else {
      // An exact count stays exact (whatever cap it is asked with next), unless this count stops.
      const added =
        storeSize > kept.countedTo
          ? this.countAbove(term, kept.countedTo, storeSize, cap)
          : { matches: 0, capped: false };
      const matches = kept.matches + added.matches;
      entry = { matches, capped: added.capped, countedTo: storeSize, countedAt: kept.countedAt };
    }
    this.kept.set(term, entry);
    if (this.kept.size > KEPT_COUNTS) this.kept.delete(this.kept.keys().next().value as string);
    // A count kept through its grace says common, whatever it holds.
    return entry === kept || entry.capped ? cap : Math.min(entry.matches, cap);
  }

  /** Forgets every kept count: messages were deleted, and their row ids may be used again. */
  forgetCounts(): void {
    this.kept.clear();
  }

  /** Matches of `term` among messages with a row id in (`afterId`, `upToId`], up to `cap`. */
  private countAbove(
    term: string,
    afterId: number,
    upToId: number,
    cap: number,
  ): { matches: number; capped: boolean } {
    const expression = matchExpression([term]);
    if (expression === undefined) return { matches: 0, capped: false };
    // Bounded above too: the watermark may move between reading it and counting (a writer in
    // another process indexing a batch), and a count past it would be counted again next time.
    const matches = (this.count.get(expression, afterId, upToId, cap) as { count: number }).count;
    return { matches, capped: matches >= cap };
  }
}

/** The match count from which a term is common in a store of `storeSize` messages. */
function capFor(storeSize: number): number {
  return Math.max(MIN_CAP, Math.ceil(storeSize * COMMON_SHARE));
}
