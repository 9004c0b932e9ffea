/**
 * Full-text search of one session's messages and summaries (FTS5, BM25). Message search brings
 * the deferred index up to date first (`MessageSearchIndex.catchUp`), so it never misses a stored
 * message; summaries are indexed in the compaction's own transaction. Terms too common to tell
 * messages apart are left out of message search while rarer ones remain (`term-selection.ts`). Terms
 * that make no match
 * expression, or an unknown session, find nothing. Methods are synchronous and run inside the
 * store's error handling (`SqliteLosslessStore.run`).
 */
import type { SearchHit } from "../store.js";
import { matchExpression } from "./match-expression.js";
import type { MessageSearchIndex } from "./search-index.js";
import { findSession } from "./session-rows.js";
import type { Statements } from "./statements.js";
import type { TermSelection } from "./term-selection.js";

interface RankedRow<Key> {
  key: Key;
  rank: number;
}

export class SqliteSearch {
  constructor(
    private readonly statements: Statements,
    private readonly index: MessageSearchIndex,
    private readonly termSelection: TermSelection,
  ) {}

  /** Message seqs, best first; a higher score is a better match. */
  messages(sessionId: string, terms: readonly string[], limit: number): SearchHit<number>[] {
    const session = findSession(this.statements, sessionId);
    if (session === undefined) return [];
    this.index.catchUp();
    const expression = matchExpression(this.termSelection.select(terms));
    if (expression === undefined) return [];
    const rows = this.statements.searchMessages.all(expression, session.id, limit) as RankedRow<number>[];
    return rows.map(toHit);
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
}

/** BM25 ranks lower is better; hits score higher is better. */
function toHit<Key>(row: RankedRow<Key>): SearchHit<Key> {
  return { key: row.key, score: -row.rank };
}
