/**
 * Which search terms are worth ranking by. BM25 gives a term that occurs in a large share of the
 * messages almost no weight, yet ranking has to score every message it occurs in: at 50k messages
 * a query with one such word costs tens of milliseconds. So each term's document count is
 * estimated first, counting at most `cap` matches (FTS5 walks matches in rowid order without
 * ranking, which is cheap and stops at the limit), and terms reaching the cap are left out while
 * rarer terms remain. A query of common terms only keeps its least common few.
 */
import type Database from "better-sqlite3";
import { matchExpression } from "./match-expression.js";

/** Terms in at least this share of the store's messages are "common". */
const COMMON_SHARE = 0.01;
/** Below this many matches a term is never common, whatever the store's size. */
const MIN_CAP = 200;
/** Kept from a query whose terms are all common. */
const KEEP_WHEN_ALL_COMMON = 2;

const COUNT_SQL = `SELECT count(*) AS count FROM (
  SELECT rowid FROM messages_fts WHERE messages_fts MATCH ? LIMIT ?)`;
const SIZE_SQL = "SELECT coalesce(max(id), 0) AS size FROM messages";

export class TermSelection {
  private readonly count: Database.Statement;
  private readonly size: Database.Statement;

  constructor(database: Database.Database) {
    this.count = database.prepare(COUNT_SQL);
    this.size = database.prepare(SIZE_SQL);
  }

  /** `terms` without the common ones (see the file comment), in their given order. */
  select(terms: readonly string[]): string[] {
    if (terms.length <= 1) return [...terms];
    const storeSize = (this.size.get() as { size: number }).size;
    const cap = Math.max(MIN_CAP, Math.ceil(storeSize * COMMON_SHARE));
    if (storeSize <= cap) return [...terms];
    const counted = terms.map((term, index) => ({ term, index, matches: this.matches(term, cap) }));
    const rare = counted.filter((entry) => entry.matches < cap);
    if (rare.length > 0) return rare.map((entry) => entry.term);
    return counted
      .sort((left, right) => left.matches - right.matches || left.index - right.index)
      .slice(0, KEEP_WHEN_ALL_COMMON)
      .sort((left, right) => left.index - right.index)
      .map((entry) => entry.term);
  }

  private matches(term: string, cap: number): number {
    const expression = matchExpression([term]);
    if (expression === undefined) return 0;
    return (this.count.get(expression, cap) as { count: number }).count;
  }
}
