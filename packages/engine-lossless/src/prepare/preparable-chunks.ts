import { chunkKeyOf, MIN_LEAF_CHUNK_TOKENS, spanInView } from "../compaction/leaf-chunk.js";
import { heldCondensations, leaseRuns } from "../compaction/leaf-supply.js";
import {
  condenseLimitsOf,
  condenseRun,
  freshTailStart,
  type ItemRun,
  leafChunks,
  summaryTokensBefore,
} from "../compaction/plan.js";
import { isStandIn } from "../compaction/stand-in.js";
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
    .map((chunk) => preparableOf("leaf", items, chunk));
}

/** The engine's settings for condensing (see `condenseLimitsOf`) and the budget's summary share. */
export interface CondenseShape {
  condenseFanIn: number;
  leafChunkTokens: number;
  /** Tokens of summaries before the tail from which compaction condenses. */
  summaryLimit: number;
}

/** Share of `summaryLimit` from which the next condensation is prepared. */
const PREPARE_CONDENSE_AT = 0.5;

/**
 * The run of summaries compaction will condense first, once the summaries before the fresh tail
 * fill half their share of the budget, and only when nothing compaction does first can change it:
 * - the leaf phase will make no leaf before the run's end (raw messages there, if any, are too
 *   few for one, and stay raw until a condensation folds them in);
 * - the run is full (the fan-in) or a summary that cannot join it follows (no later leaf joins);
 * - a run deeper than the leaves is prepared only when no leaf will be made before the tail (new
 *   leaves would be condensed first, shallowest depth first).
 * So the node is made once, for exactly the run compaction picks.
 */
export function preparableCondensation(
  items: readonly ViewItem[],
  tailTokens: number,
  shape: CondenseShape,
): PreparableChunk | undefined {
  const tailStart = freshTailStart(items, tailTokens);
  if (summaryTokensBefore(items, tailStart) < shape.summaryLimit * PREPARE_CONDENSE_AT) return undefined;
  const run = condenseRun(items, tailStart, condenseLimitsOf(shape));
  if (run === undefined || !settled(items, run, tailStart, shape)) return undefined;
  return preparableOf("condensed", items, run);
}

/** What a pass of summary preparation works with besides the view and the stored jobs. */
export interface PreparationShape extends CondenseShape {
  /** Tokens of the fresh tail (a share of the session's budget). */
  tailTokens: number;
  /** Whether summaries a stand-in wrote get upgrade jobs (a model is configured). */
  upgrades: boolean;
}

/**
 * The jobs a pass starts, in the order it starts them: the closed leaf chunks, the next
 * condensation, then upgrades (a leaf or condensation saves a compaction its wait, where an
 * upgrade only improves a summary already in place); none with a prepared summary, a running
 * lease, or an upgrade given up after `UPGRADE_ATTEMPTS`. Upgrades leave out the runs of
 * condensations prepared or being prepared.
 */
export function chunksToPrepare(
  items: readonly ViewItem[],
  jobs: readonly StoredSummaryJob[],
  now: number,
  shape: PreparationShape,
): PreparableChunk[] {
  const givenUp = (job: StoredSummaryJob) => job.kind === "upgrade" && job.attempts >= UPGRADE_ATTEMPTS;
  const taken = new Set(
    jobs
      .filter((job) => job.prepared !== undefined || leaseRuns(job, now) || givenUp(job))
      .map((job) => job.chunkKey),
  );
  const condensation = preparableCondensation(items, shape.tailTokens, shape);
  const held = heldCondensations(items, jobs, now);
  const condensing = condensation === undefined ? held : [...held, condensation];
  return [
    ...preparableChunks(items, shape.tailTokens, shape.leafChunkTokens),
    ...(condensation === undefined ? [] : [condensation]),
    ...(shape.upgrades ? preparableUpgrades(items, condensing) : []),
  ].filter((chunk) => !taken.has(chunk.chunkKey));
}

/** How many times an upgrade is tried before its summary is left as the stand-in wrote it. */
export const UPGRADE_ATTEMPTS = 2;

/**
 * Summaries in the view that a stand-in wrote in a model's place (see `writerId`), for an engine whose
 * summarizer is a model (see `SummaryJobKind`), oldest first, leaving out those inside the runs of
 * `except` (runs whose condensation is prepared or being prepared: their nodes are made from the
 * summaries as they are, and an upgrade published first would make them stale, while the
 * condensation folds the summary away anyway). Each is a job over that one item; compaction
 * publishes its node in the item's place, at the same prefix boundary as the rest of its work.
 */
export function preparableUpgrades(
  items: readonly ViewItem[],
  except: ReadonlyArray<{ firstPosition: number; lastPosition: number }> = [],
): PreparableChunk[] {
  const upgrades: PreparableChunk[] = [];
  items.forEach((item, index) => {
    const summary = item.summary;
    if (summary === undefined || !isStandIn(summary.summarizer)) return;
    const inRun = except.some(
      (run) => item.position >= run.firstPosition && item.position <= run.lastPosition,
    );
    if (inRun) return;
    const upgrade = preparableOf("upgrade", items, { start: index, end: index + 1, tokens: item.tokens });
    upgrades.push(upgrade);
  });
  return upgrades;
}

/** The job for `items[run.start, run.end)`, named by its chunk key. */
function preparableOf(
  kind: PreparableChunk["kind"],
  items: readonly ViewItem[],
  run: ItemRun,
): PreparableChunk {
  const runItems = items.slice(run.start, run.end);
  return {
    chunkKey: chunkKeyOf(runItems),
    kind,
    firstPosition: (runItems[0] as ViewItem).position,
    lastPosition: (runItems.at(-1) as ViewItem).position,
    items: runItems,
    tokens: run.tokens,
  };
}

/** Whether compaction's leaf phase, and leaves still to come, leave `run` as it is (see above). */
function settled(items: readonly ViewItem[], run: ItemRun, tailStart: number, shape: CondenseShape): boolean {
  if (leavesBefore(items, run.end, tailStart, shape.leafChunkTokens)) return false;
  // Raw stragglers in the run have no depth: the run is as deep as its summaries.
  const depths = items.slice(run.start, run.end).flatMap((item) => item.summary?.depth ?? []);
  const deeper = Math.min(...depths) > 0;
  if (deeper && leavesBefore(items, tailStart, tailStart, shape.leafChunkTokens)) return false;
  if (run.end - run.start >= shape.condenseFanIn) return true;
  const next = items[run.end];
  if (next?.summary === undefined) return false;
  const unbounded = condenseRun(items, items.length, condenseLimitsOf(shape));
  return unbounded?.start === run.start && unbounded.end === run.end;
}

/**
 * Whether compaction's leaf phase (over chunks up to the fresh tail at `tailStart`) would make a
 * leaf starting before `end`, now or once the tail moves. Raw messages there that it never
 * makes one of (a run between summaries too small for a leaf, such as a session's first short
 * prompt) stay raw until a condensation folds them in: they must not keep every condensation from
 * being prepared.
 */
function leavesBefore(
  items: readonly ViewItem[],
  end: number,
  tailStart: number,
  chunkTokens: number,
): boolean {
  return leafChunks(items, tailStart, chunkTokens).some(
    (chunk) => chunk.start < end && (!chunk.closed || chunk.tokens >= MIN_LEAF_CHUNK_TOKENS),
  );
}

/**
 * Jobs whose chunk is no longer a closed chunk of the view (a compaction replaced some of its
 * items, or the chunking changed), or, for a condensed or upgrade job, whose items no longer sit
 * in the view where they were, or, for an upgrade, whose summary lies in a run whose condensation
 * is prepared or being prepared (compaction never swaps it in there, and the condensation folds
 * it away); unless a worker's lease on them still runs: that worker will finish, and a later pass
 * discards its result. Whatever the budget (it only moves the tail), a chunk closed once stays
 * closed, so the whole view is the reference.
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
  const held = heldCondensations(items, jobs, now);
  const folded = (job: StoredSummaryJob) =>
    job.kind === "upgrade" &&
    held.some((run) => job.firstPosition >= run.firstPosition && job.firstPosition <= run.lastPosition);
  const stale = (job: StoredSummaryJob) =>
    job.kind === "leaf" ? !current.has(job.chunkKey) : !spanInView(items, job) || folded(job);
  return jobs.filter((job) => stale(job) && !leaseRuns(job, now)).map((job) => job.chunkKey);
}
