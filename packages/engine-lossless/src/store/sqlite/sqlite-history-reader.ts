/**
 * The read half of the SQLite store's message, summary and view tables. Every read is one
 * statement (lists travel as one JSON parameter, see `statements.ts`); reads of several tables
 * run in one transaction so they see one version. An unknown session reads as empty. Methods are
 * synchronous and run inside the store's error handling (`SqliteLosslessStore.run`).
 */
import type Database from "better-sqlite3";
import type { ContextView, MessageRangeQuery, SessionStats, StoredMessage, StoredSummary } from "../store.js";
import { MessageRowCache } from "./message-row-cache.js";
import {
  type ContextItemRow,
  type MessageRow,
  type SummaryRow,
  toStoredContextItem,
  toStoredMessage,
  toStoredSummary,
} from "./rows.js";
import { findSession } from "./session-rows.js";
import type { Statements } from "./statements.js";

/** A time window with fewer messages than this is read through the time index. */
const NARROW_WINDOW_MESSAGES = 2_000;

export class SqliteHistoryReader {
  private readonly cache: MessageRowCache;
  private readonly readMessages: (sessionId: string, seqs: readonly number[]) => StoredMessage[];

  constructor(
    private readonly database: Database.Database,
    private readonly statements: Statements,
  ) {
    this.cache = new MessageRowCache(database);
    this.readMessages = database.transaction((sessionId: string, seqs: readonly number[]) =>
      this.messagesNow(sessionId, seqs),
    );
  }

  contextView(sessionId: string): ContextView {
    return this.database.transaction(() => {
      const session = findSession(this.statements, sessionId);
      if (session === undefined) return { version: 0, items: [] };
      const rows = this.statements.readView.all(session.id) as ContextItemRow[];
      return { version: session.view_version, items: rows.map(toStoredContextItem) };
    })();
  }

  viewVersion(sessionId: string): number {
    return findSession(this.statements, sessionId)?.view_version ?? 0;
  }

  sessionStats(sessionId: string): SessionStats {
    const session = findSession(this.statements, sessionId);
    if (session === undefined) return { messageCount: 0, summaryCount: 0, viewVersion: 0 };
    const count = (statement: Database.Statement) => (statement.get(session.id) as { count: number }).count;
    return {
      messageCount: count(this.statements.countMessages),
      summaryCount: count(this.statements.countSummaries),
      viewVersion: session.view_version,
    };
  }

  /**
   * Messages with these seqs, in seq order, each once; recently read ones from the cache. One read
   * transaction, so the cache's check and the rows read see one version of the store.
   */
  messages(sessionId: string, seqs: readonly number[]): StoredMessage[] {
    return this.readMessages(sessionId, seqs);
  }

  private messagesNow(sessionId: string, seqs: readonly number[]): StoredMessage[] {
    const session = findSession(this.statements, sessionId);
    if (session === undefined || seqs.length === 0) return [];
    this.cache.validate();
    const found = new Map<number, StoredMessage>();
    const missing: number[] = [];
    for (const seq of seqs) {
      if (found.has(seq)) continue;
      const cached = this.cache.get(session.id, seq);
      if (cached === undefined) missing.push(seq);
      else found.set(seq, cached);
    }
    if (missing.length > 0) {
      const rows = this.statements.readMessagesBySeq.all(session.id, JSON.stringify(missing)) as MessageRow[];
      for (const row of rows) found.set(row.seq, this.cache.put(session.id, toStoredMessage(row)));
    }
    return [...found.values()].sort((left, right) => left.seq - right.seq);
  }

  /** Forgets cached rows: this connection deleted messages, whose seqs may name others later. */
  forgetMessages(): void {
    this.cache.clear();
  }

  messageRange(sessionId: string, query: MessageRangeQuery): StoredMessage[] {
    const session = findSession(this.statements, sessionId);
    if (session === undefined || query.limit <= 0) return [];
    const ranges = query.ranges;
    if (ranges !== undefined && ranges.length === 0) return [];
    const firstSeq = ranges === undefined ? 0 : Math.min(...ranges.map(([first]) => first));
    const parameters = {
      session: session.id,
      fromSeq: Math.max(Math.floor(query.afterSeq ?? 0) + 1, firstSeq),
      lastSeq: ranges === undefined ? Number.MAX_SAFE_INTEGER : Math.max(...ranges.map(([, last]) => last)),
      fromTime: query.fromTime ?? Number.MIN_SAFE_INTEGER,
      toTime: query.toTime ?? Number.MAX_SAFE_INTEGER,
      ranges: ranges === undefined ? null : JSON.stringify(ranges),
      limit: Math.floor(query.limit),
    };
    const statement = this.inNarrowWindow(session.id, query)
      ? this.statements.readMessageTimeWindow
      : this.statements.readMessageRange;
    return (statement.all(parameters) as MessageRow[]).map(toStoredMessage);
  }

  /**
   * Whether `query` has a time window holding fewer than `NARROW_WINDOW_MESSAGES` of the session's
   * messages: then reading them by time and sorting them by seq costs less than walking the seq
   * index from the cursor (72 ms for a window at the end of 50k messages), which a wide window
   * still does, since its first matches come early.
   */
  private inNarrowWindow(sessionRef: number, query: MessageRangeQuery): boolean {
    if (query.fromTime === undefined && query.toTime === undefined) return false;
    const count = this.statements.countTimeWindow.get(
      sessionRef,
      query.fromTime ?? Number.MIN_SAFE_INTEGER,
      query.toTime ?? Number.MAX_SAFE_INTEGER,
      NARROW_WINDOW_MESSAGES,
    ) as { count: number };
    return count.count < NARROW_WINDOW_MESSAGES;
  }

  /** The summaries found, in the order of `summaryIds`. */
  summaries(sessionId: string, summaryIds: readonly string[]): StoredSummary[] {
    const session = findSession(this.statements, sessionId);
    if (session === undefined || summaryIds.length === 0) return [];
    const rows = this.statements.readSummaries.all(session.id, JSON.stringify(summaryIds)) as SummaryRow[];
    const byId = new Map(rows.map((row) => [row.summary_id, toStoredSummary(row)]));
    return summaryIds.flatMap((id) => byId.get(id) ?? []);
  }

  /** Leaf summaries one of whose source ranges holds `seq` (the span alone is not enough). */
  leafSummariesOf(sessionId: string, seq: number): StoredSummary[] {
    const session = findSession(this.statements, sessionId);
    if (session === undefined) return [];
    const rows = this.statements.findLeafSummaries.all(session.id, seq, seq) as SummaryRow[];
    return rows
      .map(toStoredSummary)
      .filter((summary) => summary.sourceRanges.some(([first, last]) => seq >= first && seq <= last));
  }
}
