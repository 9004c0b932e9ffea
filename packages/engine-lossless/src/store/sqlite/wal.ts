/**
 * The store's files on disk: their sizes, and the write-ahead log's truncation, shared by the log's
 * keeper (`store-log.ts`) and a full reclaim (`SqliteRecorder.reclaimAll`).
 */
import { statSync } from "node:fs";
import type Database from "better-sqlite3";

/** Bytes of the database's WAL file; 0 without one (in memory, or none yet). */
export function walBytes(path: string | undefined): number {
  if (path === undefined || path === "" || path === ":memory:") return 0;
  try {
    return statSync(`${path}-wal`).size;
  } catch {
    return 0;
  }
}

/**
 * Checkpoints the WAL and truncates it. With `wait`, waits for readers up to the busy timeout (an
 * explicit full reclaim); without, tries once: a busy database is left for SQLite's own
 * checkpoints, so background work never stalls the process. SQLITE_BUSY here is not an error.
 */
export function truncateWal(database: Database.Database, wait: boolean): void {
  if (database.readonly) return;
  const busyTimeout = Number(database.pragma("busy_timeout", { simple: true }));
  if (!wait) database.pragma("busy_timeout = 0");
  try {
    database.pragma("wal_checkpoint(TRUNCATE)");
  } catch {
    // Busy: a reader or writer holds the WAL; its pages are checkpointed later.
  } finally {
    if (!wait) database.pragma(`busy_timeout = ${busyTimeout}`);
  }
}

/** Bytes of the database file with its WAL and shared-memory files; 0 in memory. */
export function fileBytes(path: string): number {
  if (path === ":memory:" || path === "") return 0;
  let total = 0;
  for (const suffix of ["", "-wal", "-shm"]) {
    try {
      total += statSync(`${path}${suffix}`).size;
    } catch {
      // The WAL and shared-memory files exist only while the database is open in WAL mode.
    }
  }
  return total;
}
