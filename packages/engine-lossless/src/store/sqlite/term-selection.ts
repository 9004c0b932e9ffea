/**
 * Which search terms are worth ranking by. BM25 gives a term that occurs in a large share of the
 * messages almost no weight, yet ranking has to score every message it occurs in: at 50k messages
 * a query with one such word costs tens of milliseconds. So each term's document count is
 * estimated first, counting at most `cap` matches (FTS5 walks matches in rowid order without
 * ranking, which is cheap and stops at the limit), and terms reaching the cap are left out while
 * rarer terms remain. A query of common terms only keeps its first few: every one of them reached
 * the cap, so which is least common is not known without the full counts this avoids.
 */
import type Database from "better-sqlite3";
import { matchExpression } from "./match-expression.js";

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
  SELECT rowid FROM messages_fts WHERE messages_fts MATCH ? AND rowid > ? LIMIT ?)`;
const NEWEST_IDS_SQL =
  "SELECT rowid FROM messages_fts WHERE messages_fts MATCH ? ORDER BY rowid DESC LIMIT ?";
/** Counts kept for `selectCounted`, the most recently used. */
const KEPT_COUNTS = 4_096;
/** A term kept as common is counted again once the store has grown by this share. */
const COUNT_STALE_GROWTH = 0.05;
const SIZE_SQL = "SELECT coalesce(max(id), 0) AS size FROM messages";

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

/** Terms of this many words or more are read as id lists by `selectCounted` (see `CountedTerm`). */
const PHRASE_WORDS = 2;
/** Words of a phrase `selectCounted` matches at most (see `narrowed`). */
const MAX_PHRASE_WORDS = 4;
/** A narrowed phrase with more matches than this is matched whole after all (see `phraseIds`). */
const MAX_NARROWED_MATCHES = 50;
/**
 * Terms whose words `WORD_RUN` splits as FTS5's tokenizer does: printable ASCII. Elsewhere the
 * two can differ (unicode61 keeps combining marks inside a word), and a run cut at the wrong
 * place could match nothing.
 */
const NARROWABLE = /^[\x20-\x7e]+$/;

/** A term being selected: its place in the query, and whether it is common only by its words. */
type Counted = CountedTerm & { index: number; assumedCommon?: boolean };

function isRare(entry: CountedTerm): boolean {
  return !entry.capped && entry.matches > 0;
}

/** A term of several words, matched as a phrase (and read as an id list, see `CountedTerm`). */
function isPhrase(term: string): boolean {
  return (term.match(WORD_RUN)?.length ?? 0) >= PHRASE_WORDS && matchExpression([term]) !== undefined;
}
/** Runs of letters and digits: roughly the words FTS5's tokenizer makes of a term. */
const WORD_RUN = /[\p{L}\p{N}]+/gu;

interface KeptCount {
  /** Matches among messages up to row id `countedTo`, counted up to the cap of the time. */
  matches: number;
  capped: boolean;
  countedTo: number;
  /** The store size when the term was last counted from the start. */
  countedAt: number;
}

export class TermSelection {
  private readonly count: Database.Statement;
  private readonly newestIds: Database.Statement;
  private readonly size: Database.Statement;
  /** Per term, its count for `selectCounted`. */
  private readonly kept = new Map<string, KeptCount>();

  constructor(database: Database.Database) {
    this.count = database.prepare(COUNT_SQL);
    this.newestIds = database.prepare(NEWEST_IDS_SQL).pluck();
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
   * `select` skips (it keeps them all the same).
   */
  selectCounted(terms: readonly string[], storeSize = this.storeSize()): CountedTerm[] {
    const cap = capFor(storeSize);
    const counted = terms.map((term, index): Counted => {
      if (!isPhrase(term)) {
        const matches = this.keptMatches(term, cap, storeSize);
        return { term, index, matches, capped: matches >= cap };
      }
      // A phrase whose every word is common is taken as common without matching it: that
      // match is the costly one (FTS5 checks positions wherever the common words meet), and
      // a prompt's pasted paths are mostly such phrases.
      const words = term.match(WORD_RUN) ?? [];
      const common = words.every((word) => this.keptMatches(word, cap, storeSize) >= cap);
      if (common) return { term, index, matches: cap, capped: true, assumedCommon: true };
      return { ...this.phraseIds(term, cap, this.narrowed(term, words, cap, storeSize)), index };
    });
    // With nothing rare found, a phrase taken as common may be rare after all: matched, then.
    if (!counted.some(isRare) && counted.some((entry) => entry.assumedCommon === true)) {
      return this.selectFrom(
        counted.map((entry) =>
          // Matched whole: a run of common words would only find the newest of many matches.
          entry.assumedCommon === true ? { ...this.phraseIds(entry.term, cap), index: entry.index } : entry,
        ),
      );
    }
    return this.selectFrom(counted);
  }

  /**
   * A phrase term with the row ids of its newest matches, up to `cap` (see `CountedTerm`); matched
   * by `run` (see `narrowed`) when that run is selective (at most `MAX_NARROWED_MATCHES` matches,
   * all of them ranked), else whole.
   */
  private phraseIds(term: string, cap: number, run?: string): CountedTerm {
    if (run !== undefined) {
      const newestIds = this.newestIds.all(matchExpression([run]), cap) as number[];
      if (newestIds.length <= MAX_NARROWED_MATCHES)
        return { term, matches: newestIds.length, capped: false, newestIds };
    }
    const newestIds = this.newestIds.all(matchExpression([term]), cap) as number[];
    return { term, matches: newestIds.length, capped: newestIds.length >= cap, newestIds };
  }

  /**
   * For a phrase (`term`, its `words`) of more than `MAX_PHRASE_WORDS` words (a pasted path, URL or id) with a common word
   * among rarer ones, its run of that many words with the fewest matches, the later run among
   * equals (a path ends with its file name); else undefined. FTS5 matches a phrase by walking the
   * match list of every word in it, so a path's common words (`users`, `src`) cost milliseconds each
   * (a 13-word path at 50k messages: 3.9 ms; its last three words: 0.5 ms), while its rare words
   * decide which messages match. The run matches every message the whole phrase does, and those
   * that share its rarest part, ranked alike.
   */
  private narrowed(
    term: string,
    words: readonly string[],
    cap: number,
    storeSize: number,
  ): string | undefined {
    if (words.length <= MAX_PHRASE_WORDS || !NARROWABLE.test(term)) return undefined;
    const counts = words.map((word) => this.keptMatches(word, cap, storeSize));
    if (!counts.some((count) => count >= cap)) return undefined;
    let best = 0;
    let fewest = Number.POSITIVE_INFINITY;
    for (let start = 0; start + MAX_PHRASE_WORDS <= words.length; start++) {
      let matches = 0;
      for (let at = start; at < start + MAX_PHRASE_WORDS; at++) matches += counts[at] as number;
      if (matches <= fewest) {
        fewest = matches;
        best = start;
      }
    }
    return words.slice(best, best + MAX_PHRASE_WORDS).join(" ");
  }

  /** The highest message row id: the store's size, as far as commonness goes. */
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
   * others out.
   */
  private selectFrom(counted: readonly Counted[]): CountedTerm[] {
    const rare = counted.filter(isRare);
    const kept =
      rare.length > 0 ? rare : counted.filter((entry) => entry.matches > 0).slice(0, KEEP_WHEN_ALL_COMMON);
    return kept.map(({ index: _index, assumedCommon: _assumed, ...entry }) => entry);
  }

  /**
   * `term`'s matches up to `cap`, kept across calls: a prompt's words recur in the next prompts,
   * and a count read cold costs more than the ranking that follows. A kept count is brought up to
   * date by counting only the messages stored since (`storeSize` is the highest row id, and every
   * message up to it is indexed when a search runs); a term that reached the cap stays common
   * until the store has grown by `COUNT_STALE_GROWTH`. Deleting a session leaves kept counts high,
   * which only shifts how ranking work is shared out, never what a ranked match scores.
   */
  private keptMatches(term: string, cap: number, storeSize: number): number {
    const kept = this.kept.get(term);
    this.kept.delete(term);
    let entry: KeptCount;
    const stillCommon = kept?.capped === true && storeSize <= kept.countedAt * (1 + COUNT_STALE_GROWTH);
    if (kept === undefined || storeSize < kept.countedTo || (kept.capped && !stillCommon)) {
      entry = { ...this.countAbove(term, 0, cap), countedTo: storeSize, countedAt: storeSize };
    } else if (stillCommon) {
      entry = kept;
    } else {
      const added = storeSize > kept.countedTo ? this.countAbove(term, kept.countedTo, cap).matches : 0;
      const matches = kept.matches + added;
      entry = { matches, capped: matches >= cap, countedTo: storeSize, countedAt: kept.countedAt };
    }
    this.kept.set(term, entry);
    if (this.kept.size > KEPT_COUNTS) this.kept.delete(this.kept.keys().next().value as string);
    return entry.capped ? cap : Math.min(entry.matches, cap);
  }

  /** Matches of `term` among messages with a row id above `afterId`, up to `cap`. */
  private countAbove(term: string, afterId: number, cap: number): { matches: number; capped: boolean } {
    const expression = matchExpression([term]);
    if (expression === undefined) return { matches: 0, capped: false };
    const matches = (this.count.get(expression, afterId, cap) as { count: number }).count;
    return { matches, capped: matches >= cap };
  }
}

/** The match count from which a term is common in a store of `storeSize` messages. */
function capFor(storeSize: number): number {
  return Math.max(MIN_CAP, Math.ceil(storeSize * COMMON_SHARE));
}
