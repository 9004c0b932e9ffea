/**
 * The store's write-ahead log: when it is emptied, and where. Emptying copies the log into the
 * database file and syncs it, which on the store's connection holds the event loop for as long as
 * it takes (0.25–0.5 s for the 64 MB a bulk import leaves). So the copy is made by the checkpoint
 * worker (`wal-checkpointer.ts`) and only the truncation after it, which then finds nothing left
 * to copy, runs here. When it is emptied:
 * - after a bulk write or an indexing batch, near SQLite's own checkpoint inside a commit
 *   (`afterLargeWrite`);
 * - before a compaction's write, when the write would take it near SQLite's own checkpoint
 *   (`makeRoomFor`);
 * - once background indexing is done, or upkeep took a step, when it has grown (`emptyIfLarge`);
 * - at the end of upkeep's reclaim, so the pages it freed leave the disk (`empty`);
 * - at `close`, in line.
 * Started again by `restartIfEmpty` in background maintenance: the first commit into an emptied
 * log syncs its header, and the next turn's ingest should not be the one to pay it.
 *
 * In memory there is no log and every method does nothing; a read-only store writes nothing,
 * checkpoints included. Never throws: a busy database leaves the log to the next attempt, and
 * SQLite's own checkpoints keep it bounded meanwhile.
 */
import type Database from "better-sqlite3";
import type { CompactionWrite } from "../store.js";
import { truncateWal, walBytes } from "./wal.js";
import { WalCheckpointer } from "./wal-checkpointer.js";

/** A log past this size is emptied once background work is done (when no reader holds it). */
const LARGE_WAL_BYTES = 1024 * 1024;
/**
 * A log past this size after a large write is emptied at once, before SQLite's own checkpoint at
 * 64 MB would run inside a commit. Not sooner: a checkpoint in the middle of an import competes
 * with it for the machine (a 50,000-message bootstrap measured 8 % slower emptying every 4 MB),
 * and while it copies, the disk holds what it copies twice.
 */
const EMPTY_AFTER_BULK_WAL_BYTES = 48 * 1024 * 1024;

export class StoreLog {
  private readonly checkpointer: WalCheckpointer | undefined;
  private closed = false;

  /**
   * `path` is the database file (undefined in memory); `startJournal` makes the one small write
   * that starts an emptied log.
   */
  constructor(
    private readonly database: Database.Database,
    private readonly path: string | undefined,
    private readonly startJournal: () => void,
  ) {
    this.checkpointer = path === undefined || database.readonly ? undefined : new WalCheckpointer(path);
  }

  /** After a large write: empties a log grown near SQLite's own checkpoint, in the background. */
  afterLargeWrite(): void {
    if (walBytes(this.path) > EMPTY_AFTER_BULK_WAL_BYTES) void this.empty();
  }

  /**
   * Before a write of about `bytes` (a compaction's): empties the log first when the write would
   * take it past `EMPTY_AFTER_BULK_WAL_BYTES`, near SQLite's own checkpoint, which would run inside
   * the write's commit, on the event loop (0.3–0.4 s after a 50k backlog's import). A smaller log
   * is left to background work: emptying it first made a 10k backlog's compaction wait for 0.2 s
   * of checkpoint it did not need.
   */
  async makeRoomFor(bytes: number): Promise<void> {
    if (walBytes(this.path) + bytes > EMPTY_AFTER_BULK_WAL_BYTES) await this.empty();
  }

  /** Empties the log when it has grown past what background work leaves. */
  async emptyIfLarge(): Promise<void> {
    if (walBytes(this.path) > LARGE_WAL_BYTES) await this.empty();
  }

  /** Starts the log again when it is empty, so the next ingest does not pay the sync. */
  restartIfEmpty(): void {
    if (this.checkpointer === undefined || this.closed || walBytes(this.path) > 0) return;
    try {
      this.startJournal();
    } catch {
      // Busy or failing: the next write starts the log itself.
    }
  }

  /** Ends the checkpoint worker and truncates the log in line; the database closes next. */
  async close(): Promise<void> {
    this.closed = true;
    await this.checkpointer?.close();
    this.truncate();
  }

  /** Empties the log: the worker copies it, then the truncation here finds nothing left to copy. */
  async empty(): Promise<void> {
    if (this.checkpointer === undefined) return;
    await this.checkpointer.checkpoint();
    if (!this.closed) this.truncate();
  }

  private truncate(): void {
    if (this.path === undefined) return;
    try {
      truncateWal(this.database, false);
    } catch {
      // Failing: the next attempt (or SQLite's own checkpoint) empties it.
    }
  }
}

/**
 * Log bytes a compaction's write adds, estimated high: per replaced item (measured 330–410 bytes:
 * a 10k backlog's write 3.3 MB, a 50k one's 20 MB), and each summary's text in its row, its item
 * and the full-text index.
 */
export function compactionLogBytes(write: CompactionWrite): number {
  let bytes = 0;
  for (const edit of write.edits) bytes += edit.replace.length * 512 + edit.json.length;
  for (const summary of write.summaries) bytes += summary.content.length * 2;
  return bytes;
}
