/**
 * Whether another connection has committed to the database since the last look: what in-memory
 * caches of stored data check before they answer. `PRAGMA data_version` moves for every commit of
 * another connection (another process, a CLI command) and for nothing this connection does, nor for
 * the checkpoint worker's passive checkpoints, which change no content.
 */
import type Database from "better-sqlite3";

export class ForeignCommits {
  private seen: number | undefined;
  private readonly dataVersion: Database.Statement;

  constructor(database: Database.Database) {
    this.dataVersion = database.prepare("PRAGMA data_version").pluck();
  }

  /** Whether another connection committed since the last call; true on the first. */
  sinceLastLook(): boolean {
    const version = this.dataVersion.get() as number;
    const changed = version !== this.seen;
    this.seen = version;
    return changed;
  }
}
