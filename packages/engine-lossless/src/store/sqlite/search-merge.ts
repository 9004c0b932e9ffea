/**
 * Merging the full-text indexes' segments, in upkeep. FTS5 adds a segment per indexing batch and
 * merges them only in groups (automerge), so a long-lived store holds a dozen or more; every term
 * lookup probes each one. At 50k messages, merged into one segment, the per-prompt evidence search
 * measured 2.34 → 2.12 ms mean and 4.9 → 3.7 ms p95. Search results do not change.
 */
import type Database from "better-sqlite3";
import type { ReclaimMode } from "../records.js";

const INDEXES = ["messages_fts", "summaries_fts"] as const;
/** Pages one incremental merge step writes (4 MB at 4 KB pages): a step holds the write lock briefly. */
const STEP_PAGES = 1_024;
/** Steps per index and upkeep: enough to merge the index of about 200,000 messages whole. */
const MAX_STEPS = 64;

/**
 * Merges each index toward one segment: whole for a `full` reclaim (an explicit vacuum), in
 * steps of `STEP_PAGES` for an `incremental` one, each its own transaction, up to `MAX_STEPS`;
 * what is left is merged by the next upkeep.
 */
export function mergeSearchIndexes(database: Database.Database, mode: ReclaimMode): void {
  for (const index of INDEXES) {
    if (mode === "full") {
      database.prepare(`INSERT INTO ${index} (${index}) VALUES ('optimize')`).run();
      continue;
    }
    // A negative page count merges every segment, whatever its level (FTS5's own merges wait
    // for several of a level); a step that changed fewer than two rows found nothing to do.
    const step = database.prepare(`INSERT INTO ${index} (${index}, rank) VALUES ('merge', ?)`);
    const changes = database.prepare("SELECT total_changes() AS changes").pluck();
    for (let steps = 0; steps < MAX_STEPS; steps++) {
      const before = changes.get() as number;
      step.run(-STEP_PAGES);
      if ((changes.get() as number) - before < 2) break;
    }
  }
}
