/**
 * Full-text indexing of messages, kept off the write path. `appendMessages` only stores a message;
 * this indexer adds it to `messages_fts` later, in batches: in the background a moment after a
 * write, and synchronously before every message search, so a search never misses a stored message
 * (unless it asks not to wait for a bulk import's indexing: `indexAtMost`).
 *
 * Progress is one watermark, the highest message row id up to which every message is indexed
 * (nothing above it is). The watermark moves in the same transaction as the index rows it covers,
 * so a crash leaves messages pending (indexed by the next search or idle moment), never lost and
 * never indexed twice. Row ids are only reused after the newest rows are deleted; the trigger of
 * `SEARCH_INDEX_MIGRATION` lowers the watermark then, so a reused id is pending again.
 *
 * Whoever deletes messages must bring the index up to date first (`catchUp`, in the deleting
 * transaction): an external-content FTS5 table forgets a row only when told what it indexed.
 *
 * Background work waits for idle time: a step whose delay was mostly spent running other code
 * (the event loop busier than `MAX_BUSY_SHARE`) is put off again, so indexing lands between
 * requests instead of inside them. Once nothing is pending it says so (`whenCurrent`), and the
 * store empties its log then (`store-log.ts`): after a burst of writes rather than inside one.
 */
import { type EventLoopUtilization, performance } from "node:perf_hooks";
import type Database from "better-sqlite3";
import { BULK_WRITE_MESSAGES } from "../store.js";

/** Migration "deferred message indexing", appended to `MIGRATIONS` in `schema.ts`. */
export const SEARCH_INDEX_MIGRATION = `
  CREATE TABLE index_watermarks (
    name TEXT PRIMARY KEY,
    indexed_to INTEGER NOT NULL
  ) WITHOUT ROWID;
  -- Every stored message was indexed on insert until this migration.
  INSERT INTO index_watermarks (name, indexed_to) SELECT 'messages', coalesce(max(id), 0) FROM messages;
  CREATE TRIGGER messages_reset_watermark AFTER DELETE ON messages
  BEGIN
    UPDATE index_watermarks SET indexed_to = (SELECT coalesce(max(id), 0) FROM messages)
      WHERE name = 'messages' AND indexed_to > (SELECT coalesce(max(id), 0) FROM messages);
  END;
`;

const SQL = {
  progress: `SELECT indexed_to AS indexedTo, (SELECT coalesce(max(id), 0) FROM messages) AS newest
       FROM index_watermarks WHERE name = 'messages'`,
  batchEnd: "SELECT max(id) AS last FROM (SELECT id FROM messages WHERE id > ? ORDER BY id LIMIT ?)",
  index: "INSERT INTO messages_fts (rowid, text) SELECT id, text FROM message_text WHERE id > ? AND id <= ?",
  advance: "UPDATE index_watermarks SET indexed_to = ? WHERE name = 'messages'",
  countAbove: "SELECT count(*) AS count FROM messages WHERE id > ?",
};

export interface SearchIndexOptions {
  /** Delay between a write and background indexing (ms); `false` turns background work off. */
  backgroundDelayMs: number | false;
  /** Messages per background transaction, so one step never blocks the event loop for long. */
  backgroundBatch: number;
  /**
   * Called after a bulk write and after each indexing batch: the store's log may have grown near
   * SQLite's own checkpoint, which would run inside a commit.
   */
  afterLargeWrite?: () => void;
  /** Called when a background step found nothing left to index (the store may empty its log). */
  whenCurrent?: () => void;
}

export const DEFAULT_SEARCH_INDEX_OPTIONS: SearchIndexOptions = {
  backgroundDelayMs: 50,
  backgroundBatch: 500,
};

/** A background step is put off while the event loop was busier than this since it was scheduled. */
const MAX_BUSY_SHARE = 0.5;

interface Progress {
  indexedTo: number;
  newest: number;
}

export class MessageSearchIndex {
  private readonly statements: { [Name in keyof typeof SQL]: Database.Statement };
  private timer: NodeJS.Timeout | undefined;
  /** The event loop's activity when the pending step was scheduled, to tell idle from busy. */
  private scheduledAt: EventLoopUtilization | undefined;
  private stopped = false;

  constructor(
    private readonly database: Database.Database,
    private readonly options: SearchIndexOptions,
  ) {
    this.statements = {
      progress: database.prepare(SQL.progress),
      batchEnd: database.prepare(SQL.batchEnd),
      index: database.prepare(SQL.index),
      advance: database.prepare(SQL.advance),
      countAbove: database.prepare(SQL.countAbove),
    };
  }

  /** Messages stored but not indexed yet. */
  pendingCount(): number {
    const { indexedTo, newest } = this.progress();
    if (newest <= indexedTo) return 0;
    return (this.statements.countAbove.get(indexedTo) as { count: number }).count;
  }

  /**
   * Indexes every pending message, in one transaction. Cheap when nothing is pending (one read).
   * Inside a caller's transaction it joins it (as a savepoint). Throws what SQLite throws. A
   * read-only connection cannot index: its searches see what the writer has indexed, which the
   * writer does within moments of each write (background) and before its own searches.
   */
  catchUp(): void {
    this.catchUpIfFew(Number.POSITIVE_INFINITY);
  }

  /**
   * Indexes one background batch of pending messages; whether nothing is pending after it (true
   * for a read-only connection). For a caller that catches up in steps (`settle`).
   */
  catchUpStep(): boolean {
    if (this.database.readonly || this.isCurrent()) return true;
    this.indexBatch(this.options.backgroundBatch);
    return this.isCurrent();
  }

  /**
   * `catchUp` when at most `maxPending` messages wait (counted by row ids, which bound the count
   * from above); otherwise nothing, and background indexing is scheduled. Whether it caught up.
   */
  catchUpIfFew(maxPending: number): boolean {
    if (this.database.readonly) return true;
    const { indexedTo, newest } = this.progress();
    if (newest <= indexedTo) return true;
    if (newest - indexedTo > maxPending) {
      this.schedule();
      return false;
    }
    this.indexBatch(Number.MAX_SAFE_INTEGER);
    return true;
  }

  /** After a write of `messages` messages: schedules background indexing (and tells of a bulk write). */
  afterWrite(messages: number): void {
    if (messages >= BULK_WRITE_MESSAGES) this.options.afterLargeWrite?.();
    this.schedule();
  }

  /** Schedules background indexing (once; later calls while one is scheduled do nothing). */
  schedule(): void {
    if (this.stopped || this.timer !== undefined || this.options.backgroundDelayMs === false) return;
    if (this.database.readonly) return;
    this.startTimer(this.options.backgroundDelayMs);
  }

  /** Cancels background work for good (the store is closing). Pending messages stay pending. */
  stop(): void {
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private startTimer(delayMs: number): void {
    this.scheduledAt = performance.eventLoopUtilization();
    this.timer = setTimeout(() => this.backgroundStep(), delayMs);
    // Pending messages are safe in the database; they must not keep a process alive.
    this.timer.unref();
  }

  private backgroundStep(): void {
    this.timer = undefined;
    if (this.stopped) return;
    const delayMs = this.options.backgroundDelayMs === false ? 0 : this.options.backgroundDelayMs;
    if (performance.eventLoopUtilization(this.scheduledAt).utilization > MAX_BUSY_SHARE) {
      this.startTimer(delayMs);
      return;
    }
    try {
      if (this.indexBatch(this.options.backgroundBatch) > 0 && !this.isCurrent()) {
        this.startTimer(Math.min(delayMs, 10));
        return;
      }
      this.options.whenCurrent?.();
    } catch {
      // Busy or failing: the messages stay pending, and the next search indexes them or reports
      // the error to its caller. The next write schedules another attempt.
    }
  }

  /** Indexes up to `limit` pending messages in one write transaction; returns how many. */
  private indexBatch(limit: number): number {
    const indexed = this.database
      .transaction(() => {
        const { indexedTo } = this.progress();
        const last = (this.statements.batchEnd.get(indexedTo, limit) as { last: number | null }).last;
        if (last === null) return 0;
        const { changes } = this.statements.index.run(indexedTo, last);
        this.statements.advance.run(last);
        return changes;
      })
      .immediate();
    // Indexing a bulk import's backlog writes about as much as the import did.
    if (indexed > 0) this.options.afterLargeWrite?.();
    return indexed;
  }

  private isCurrent(): boolean {
    const { indexedTo, newest } = this.progress();
    return newest <= indexedTo;
  }

  private progress(): Progress {
    return this.statements.progress.get() as Progress;
  }
}
