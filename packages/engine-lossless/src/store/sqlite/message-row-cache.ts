/**
 * Message rows this connection read lately, by session and seq. Query-aware assembly reads the
 * evidence of every prompt whole, and consecutive prompts repeat some of the same messages (on the
 * bench, about half the rows at 10,000 messages, one in five at 50,000): those come from here, not
 * from SQLite again.
 *
 * A cached row is always the stored one. Stored messages never change; a seq names another message
 * only once its session was deleted and written again. So the cache is emptied when this
 * connection deletes a session (`clear`), and before every read in which another connection has
 * committed anything since the last (`foreign-commits.ts`). Rows are frozen: callers share them.
 */
import type Database from "better-sqlite3";
import type { StoredMessage } from "../store.js";
import { ForeignCommits } from "./foreign-commits.js";

/**
 * JSON characters kept at most (2 MB when the text is ASCII, twice that otherwise; their reading
 * bodies, kept by row, about as much again). The repeats are the last few prompts' evidence, about
 * 20 KB a prompt on the bench at 50k messages, and the long tool outputs shown as excerpts.
 */
export const MESSAGE_CACHE_CHARS = 2_000_000;
/** A row over this share of the cache is returned, not kept: it would push out many others. */
const LARGEST_SHARE = 1 / 16;

export class MessageRowCache {
  /** In use order, the least recently used first (a `Map` keeps insertion order). */
  private readonly rows = new Map<string, StoredMessage>();
  private chars = 0;
  private readonly foreign: ForeignCommits;

  constructor(
    database: Database.Database,
    private readonly maxChars = MESSAGE_CACHE_CHARS,
  ) {
    this.foreign = new ForeignCommits(database);
  }

  /** Empties the cache when another connection committed since the last call; call before `get`. */
  validate(): void {
    if (this.foreign.sinceLastLook()) this.clear();
  }

  /** The row, marked as just used; undefined when not cached. */
  get(sessionRef: number, seq: number): StoredMessage | undefined {
    const key = keyOf(sessionRef, seq);
    const row = this.rows.get(key);
    if (row !== undefined) {
      this.rows.delete(key);
      this.rows.set(key, row);
    }
    return row;
  }

  /** Keeps `row` (frozen, so the caller's copy is the cached one), dropping the least recently used. */
  put(sessionRef: number, row: StoredMessage): StoredMessage {
    const frozen = Object.freeze(row);
    if (row.json.length > this.maxChars * LARGEST_SHARE) return frozen;
    const key = keyOf(sessionRef, row.seq);
    const earlier = this.rows.get(key);
    if (earlier !== undefined) this.chars -= earlier.json.length;
    this.rows.delete(key);
    this.rows.set(key, frozen);
    this.chars += row.json.length;
    for (const [oldest, dropped] of this.rows) {
      if (this.chars <= this.maxChars) break;
      this.rows.delete(oldest);
      this.chars -= dropped.json.length;
    }
    return frozen;
  }

  clear(): void {
    this.rows.clear();
    this.chars = 0;
  }
}

function keyOf(sessionRef: number, seq: number): string {
  return `${sessionRef}:${seq}`;
}
