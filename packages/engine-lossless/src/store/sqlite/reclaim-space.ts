/**
 * `reclaimSpace("incremental")`, run by upkeep in the background: the full-text indexes are merged
 * a step at a time with the event loop free in between, and the WAL each step leaves is emptied;
 * then free pages are vacuumed incrementally. In one go, merging and checkpointing the index of
 * 50,000 messages held the event loop for 0.4–0.6 s.
 */
import type Database from "better-sqlite3";
import { nextMacrotask } from "../../event-loop.js";
import type { ReclaimResult } from "../records.js";
import { MAX_MERGE_STEPS, mergeSearchIndexStep, SEARCH_INDEXES } from "./search-merge.js";
import type { SqliteRecorder } from "./sqlite-recorder.js";
import type { StoreLog } from "./store-log.js";
import { fileBytes } from "./wal.js";

export interface StepwiseReclaim {
  database: Database.Database;
  path: string;
  recorder: SqliteRecorder;
  log: StoreLog;
  /** The store's error handling around each synchronous part. */
  run: <T>(body: () => T) => T;
}

export async function reclaimInSteps(parts: StepwiseReclaim): Promise<ReclaimResult> {
  const { database, recorder, log, run } = parts;
  const bytesBefore = run(() => fileBytes(parts.path));
  for (const index of SEARCH_INDEXES) {
    for (let step = 0; step < MAX_MERGE_STEPS; step++) {
      if (!run(() => mergeSearchIndexStep(database, index))) break;
      await log.emptyIfLarge();
      await nextMacrotask();
    }
  }
  run(() => recorder.vacuumIncrementally());
  await log.empty();
  return run(() => recorder.reclaimResult(bytesBefore));
}
