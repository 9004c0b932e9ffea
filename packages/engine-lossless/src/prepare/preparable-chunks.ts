/**
 * Which chunks of a view get a prepared summary, and which stored jobs went stale. Pure functions
 * over the view's items, with the chunking compaction uses (`leafChunks`), so a prepared summary
 * is for exactly the chunk compaction will want.
 */
import { chunkKeyOf, MIN_LEAF_CHUNK_TOKENS } from "../compaction/leaf-chunk.js";
import { freshTailStart, leafChunks } from "../compaction/plan.js";
import type { StoredSummaryJob, SummaryJob } from "../store/store.js";
import type { ViewItem } from "../view/session-view.js";

export interface PreparableChunk extends SummaryJob {
  items: ViewItem[];
  /** Tokens the chunk costs in context (what compaction sizes the summary by). */
  tokens: number;
}

/**
 * The closed chunks before the fresh tail (`tailTokens`) that compaction would summarize: their
 * boundaries are final, they have left the tail, and they are large enough for a leaf.
 */
export function preparableChunks(
  items: readonly ViewItem[],
  tailTokens: number,
  chunkTokens: number,
): PreparableChunk[] {
  return leafChunks(items, freshTailStart(items, tailTokens), chunkTokens)
    .filter((chunk) => chunk.closed && chunk.tokens >= MIN_LEAF_CHUNK_TOKENS)
    .map((chunk) => {
      const chunkItems = items.slice(chunk.start, chunk.end);
      return {
        chunkKey: chunkKeyOf(chunkItems),
        kind: "leaf",
        firstPosition: (chunkItems[0] as ViewItem).position,
        lastPosition: (chunkItems.at(-1) as ViewItem).position,
        items: chunkItems,
        tokens: chunk.tokens,
      };
    });
}

/**
 * Jobs whose chunk is no longer a closed chunk of the view (a compaction replaced some of its
 * items, or the chunking changed), unless a worker's lease on them still runs: that worker will
 * finish, and a later pass discards its result. Whatever the budget (it only moves the tail), a
 * chunk closed once stays closed, so the whole view is the reference.
 */
export function staleJobs(
  items: readonly ViewItem[],
  chunkTokens: number,
  jobs: readonly StoredSummaryJob[],
  now: number,
): string[] {
  if (jobs.length === 0) return [];
  const current = new Set(
    leafChunks(items, items.length, chunkTokens)
      .filter((chunk) => chunk.closed)
      .map((chunk) => chunkKeyOf(items.slice(chunk.start, chunk.end))),
  );
  return jobs.filter((job) => !current.has(job.chunkKey) && !leaseRuns(job, now)).map((job) => job.chunkKey);
}

/** Whether a worker holds the job now. */
export function leaseRuns(job: StoredSummaryJob, now: number): boolean {
  return job.owner !== undefined && (job.leaseExpiresAt ?? 0) > now;
}
