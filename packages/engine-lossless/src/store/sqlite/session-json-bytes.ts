/**
 * Each session's stored JSON bytes, for its report (`/status`, `clew context`): counted by a scan
 * of the session's messages the first time (about 55 ms at 50,000 messages, every page of the
 * table read), then kept and moved by this connection's own appends. Forgotten when this
 * connection deletes a session and whenever another connection has committed (`foreign-commits.ts`),
 * so a report never shows a figure the store does not hold.
 */
import type Database from "better-sqlite3";
import { ForeignCommits } from "./foreign-commits.js";

export class SessionJsonBytes {
  private readonly totals = new Map<string, number>();
  private readonly foreign: ForeignCommits;

  constructor(database: Database.Database) {
    this.foreign = new ForeignCommits(database);
  }

  /** The session's bytes: kept, else `count()`ed and kept. */
  of(sessionId: string, count: () => number): number {
    if (this.foreign.sinceLastLook()) this.totals.clear();
    const kept = this.totals.get(sessionId);
    if (kept !== undefined) return kept;
    const counted = count();
    this.totals.set(sessionId, counted);
    return counted;
  }

  /** After an append committed: `inserted` of `messages` (by index) were stored in the session. */
  added(
    sessionId: string,
    messages: readonly { json: string }[],
    inserted: readonly { index: number }[],
  ): void {
    const kept = this.totals.get(sessionId);
    if (kept === undefined) return;
    let bytes = 0;
    for (const { index } of inserted) bytes += Buffer.byteLength((messages[index] as { json: string }).json);
    this.totals.set(sessionId, kept + bytes);
  }

  forget(): void {
    this.totals.clear();
  }
}
