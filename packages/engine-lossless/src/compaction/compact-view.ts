/**
 * One compaction of a session's view, worked out in memory; the caller writes the result to the
 * store in one transaction, so the view changes once (one prompt-cache break per compaction).
 *
 * Phases:
 * 0. Upgrade: summaries a stand-in (the extractive summarizer, its merge) wrote in the model's
 *    place, and that the model has written again in the background since, are swapped for the
 *    model's (never larger), except inside a run whose condensation is prepared or being
 *    prepared. A threshold compaction (aborted or not) publishes upgrades only with other work,
 *    or when they alone take the view down to the threshold (then they are the compaction): no
 *    prompt-cache break for upgrades alone.
 * 1. Leaf: chunks of raw messages before the fresh tail (the newest `freshTailShare` of the budget,
 *    at least the newest group) become leaf summaries, oldest first. Forced compaction sweeps them
 *    all; otherwise it stops once the target is reached. Chunks with a prepared summary (made in
 *    the background for exactly those items) take it, without a summarizer call, before any chunk
 *    is summarized live; with `liveLeavesAbove` (the threshold compaction of `maintain`), live
 *    summaries are made only if the prepared ones leave the view above it, and never for a chunk
 *    another worker is preparing.
 * 2. Condense: while the view is over the target, or summaries before the tail exceed
 *    `summaryShare` of the budget, runs of summaries (shallowest depth first, oldest first) fold
 *    into condensed nodes; a run prepared in the background (same items) takes its node.
 * 3. Root: if still over the target, everything before the tail folds into one node capped at the
 *    room the tail leaves.
 *
 * Why it reaches the target when it can: every published node is smaller than what it replaces
 * (an upgrade no larger), and the root pass caps its node at `target − tail`. It falls short only when the tail alone is
 * over the target, or the room left is smaller than an empty summary; the outcome names which.
 * The sources stay stored, so nothing here loses a message.
 */
import { abortReason, EXTRACTIVE_SUMMARIZER_ID } from "@clew/core";
import { nextMacrotask } from "../event-loop.js";
import type { CompactionWrite } from "../store/store.js";
import type { ViewItem } from "../view/session-view.js";
import { type BuiltNode, buildNode, type NodeSettings } from "./build-node.js";
import { condensedCap, leafCap, MIN_LEAF_CHUNK_TOKENS } from "./leaf-chunk.js";
import {
  grantedSettings,
  type LeafSupply,
  type SummarizerGrant,
  type SummarizerGrants,
} from "./leaf-supply.js";
import {
  condenseLimitsOf,
  condenseRun,
  freshTailStart,
  type ItemRun,
  leafChunks,
  runTokens,
  summaryTokensBefore,
} from "./plan.js";
import { WorkingView } from "./working-view.js";

export interface CompactionSettings extends NodeSettings {
  freshTailShare: number;
  summaryShare: number;
  leafChunkTokens: number;
  leafTargetTokens: number;
  condensedTargetTokens: number;
  condenseFanIn: number;
  /** Hands out the summarizer per node (spend budget, calls in flight); the plain summarizer without. */
  grants?: SummarizerGrants;
  /** Leaves a forced compaction builds at once with a model summarizer (absent: one by one). */
  summarizerConcurrency?: number;
}

export interface CompactViewRequest {
  sessionId: string;
  items: readonly ViewItem[];
  /** Tokens the view should end at or below. */
  targetTokens: number;
  /** The budget the fresh tail and the summary share are measured against. */
  budgetTokens: number;
  force: boolean;
  customInstructions?: string;
  signal?: AbortSignal;
  /** Prepared summaries, and which chunks other workers are preparing. */
  supply?: LeafSupply;
  /**
   * Leaves are summarized live only while the view, with every prepared leaf published, is above
   * this many tokens; chunks being prepared elsewhere are then skipped. Absent: always (`compact`).
   */
  liveLeavesAbove?: number;
}

export interface CompactViewOutcome {
  write: CompactionWrite;
  items: ViewItem[];
  tokensBefore: number;
  tokensAfter: number;
  reached: boolean;
  /** Why the target was not reached, or why nothing was done. */
  reason?: string;
  /** Leaves made of raw messages (upgrades not counted, nor in `condensedNodes`). */
  leafNodes: number;
  condensedNodes: number;
  /** Of `leafNodes` and `condensedNodes`, those published from prepared summaries (no summarizer call). */
  preparedSummaries: number;
  /**
   * Upgrades: summaries the model wrote again in the background in place of summaries a stand-in
   * wrote (prepared, and counted in none of `leafNodes`, `condensedNodes`, `preparedSummaries`).
   */
  upgradedSummaries: number;
  /** Set when the caller's signal fired; the write holds the nodes finished before it. */
  aborted?: unknown;
}

export async function compactView(
  settings: CompactionSettings,
  request: CompactViewRequest,
): Promise<CompactViewOutcome> {
  let state = new WorkingView(request.items);
  const tokensBefore = state.total();
  const tailTokens = Math.floor(request.budgetTokens * settings.freshTailShare);
  const finish = (reason?: string, aborted?: unknown): CompactViewOutcome => {
    const tokensAfter = state.total();
    const reached = tokensAfter <= request.targetTokens;
    const explained = reason ?? (reached ? undefined : state.shortfall(request.targetTokens, tailTokens));
    return {
      write: {
        summaries: state.built.map((node) => node.summary),
        edits: state.built.map((node) => node.edit),
        ...(state.settled.length === 0 ? {} : { settledJobs: [...state.settled] }),
      },
      items: state.items,
      tokensBefore,
      tokensAfter,
      reached,
      ...(explained === undefined ? {} : { reason: explained }),
      leafNodes: state.made("leaf"),
      condensedNodes: state.made("condensed"),
      preparedSummaries: state.settled.length - state.upgrades.size,
      upgradedSummaries: state.upgrades.size,
      ...(aborted === undefined ? {} : { aborted }),
    };
  };
  if (state.items.length === 0) return finish("no stored history for this session");
  if (!request.force && tokensBefore <= request.targetTokens) return finish("already within the target");
  // A threshold compaction whose only work is upgrades that leave the view above the threshold
  // would break the prompt cache without compacting: they wait, prepared, for the next one.
  const holdBack = () => {
    const onlyUpgrades = state.upgrades.size > 0 && state.built.length === state.upgrades.size;
    const threshold = request.liveLeavesAbove;
    if (!onlyUpgrades || threshold === undefined || state.total() <= threshold) return undefined;
    const held = state.upgrades.size;
    state = new WorkingView(request.items);
    return `${counted(held, "upgrade waits", "upgrades wait")} for a compaction with other work`;
  };
  try {
    upgradePhase(request, state);
    await leafPhase(settings, request, state, tailTokens);
    await condensePhase(settings, request, state, tailTokens);
    await rootPhase(settings, request, state, tailTokens);
  } catch (error) {
    if (!request.signal?.aborted) throw error;
    holdBack();
    return finish("aborted", abortReason(request.signal));
  }
  const held = holdBack();
  if (state.built.length === 0) {
    if (state.total() > request.targetTokens) return finish();
    return finish(held ?? "nothing to compact");
  }
  if (state.built.length === state.upgrades.size && state.total() >= tokensBefore) {
    const rewritten = counted(state.upgrades.size, "summary", "summaries");
    return finish(
      `rewrote ${rewritten} with the model in place of those written without it; the view is no smaller`,
    );
  }
  return finish();
}

/** `1 summary`, `2 summaries`. */
function counted(value: number, one: string, many: string): string {
  return `${value} ${value === 1 ? one : many}`;
}

/**
 * Upgrades: summaries the model wrote again in the background for summaries a stand-in had
 * written (see `SummaryJobKind`) take their place, so the prompt-cache break this compaction
 * makes anyway carries them. Each is at most as large as the summary it replaces.
 */
function upgradePhase(request: CompactViewRequest, state: WorkingView): void {
  const supply = request.supply;
  if (supply === undefined) return;
  const condensing = supply.condensing(state.items);
  const held = (item: ViewItem) =>
    condensing.some((run) => item.position >= run.firstPosition && item.position <= run.lastPosition);
  for (const item of [...state.items]) {
    if (item.summary === undefined || held(item)) continue;
    const prepared = supply.prepared([item]);
    const run = prepared === undefined ? undefined : state.runOf([item.position]);
    if (prepared !== undefined && run !== undefined && state.swap(run, prepared.node)) {
      state.settled.push(prepared.chunkKey);
      state.upgrades.add(prepared.node);
    }
  }
}

async function leafPhase(
  settings: CompactionSettings,
  request: CompactViewRequest,
  state: WorkingView,
  tailTokens: number,
): Promise<void> {
  const limit = freshTailStart(state.items, tailTokens);
  const chunks = leafChunks(state.items, limit, settings.leafChunkTokens)
    .filter((chunk) => chunk.tokens >= MIN_LEAF_CHUNK_TOKENS)
    .map((chunk) => state.items.slice(chunk.start, chunk.end));
  const reached = () => !request.force && state.total() <= request.targetTokens;
  const unprepared: ViewItem[][] = [];
  for (const items of chunks) {
    if (reached()) return;
    const prepared = request.supply?.prepared(items);
    const run = prepared === undefined ? undefined : state.runOf(positionsOf(items));
    if (prepared !== undefined && run !== undefined && state.replace(run, prepared.node))
      state.settled.push(prepared.chunkKey);
    else unprepared.push(items);
  }
  const threshold = request.liveLeavesAbove;
  if (threshold !== undefined && state.total() <= threshold) return;
  const live = unprepared.filter(
    (items) => threshold === undefined || request.supply?.leased(items) !== true,
  );
  const together = settings.summarizerConcurrency ?? 1;
  if (request.force && together > 1 && settings.summarizer.id !== EXTRACTIVE_SUMMARIZER_ID)
    return buildLeavesTogether(settings, request, state, live, together);
  for (const items of live) {
    if (reached()) return;
    const run = state.runOf(positionsOf(items));
    if (run === undefined) continue;
    state.replace(
      run,
      await buildFor(settings, request, state, run, leafCap(settings.leafTargetTokens, run.tokens)),
    );
  }
}

/**
 * A forced compaction summarizes every chunk, so a model's calls are made `together` at a time
 * (the engine's `summarizerConcurrency`): a turn that pushed four chunks out of the tail at once
 * had its compaction wait for four calls in a row. No more than that are started at once, so each
 * build still begins as a step of its own (the event loop free before it) and no more spend is
 * reserved at once than the limiter lets run. Nodes go in in chunk order once every started build
 * ended; after a failure no build is started, and the first failure is thrown (with the signal
 * fired, `compactView` keeps the nodes finished, as on the one-by-one path).
 */
async function buildLeavesTogether(
  settings: CompactionSettings,
  request: CompactViewRequest,
  state: WorkingView,
  chunks: readonly ViewItem[][],
  together: number,
): Promise<void> {
  const built = new Map<number, BuiltNode | undefined>();
  let failure: { reason: unknown } | undefined;
  let next = 0;
  const builder = async () => {
    while (next < chunks.length && failure === undefined) {
      const index = next++;
      const run = state.runOf(positionsOf(chunks[index] as ViewItem[]));
      if (run === undefined) continue;
      try {
        built.set(
          index,
          await buildFor(settings, request, state, run, leafCap(settings.leafTargetTokens, run.tokens)),
        );
      } catch (reason) {
        failure ??= { reason };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(together, chunks.length) }, builder));
  for (const [index, items] of chunks.entries()) {
    const run = state.runOf(positionsOf(items));
    if (built.has(index) && run !== undefined) state.replace(run, built.get(index));
  }
  if (failure !== undefined) throw failure.reason;
}

function positionsOf(items: readonly ViewItem[]): number[] {
  return items.map((item) => item.position);
}

async function condensePhase(
  settings: CompactionSettings,
  request: CompactViewRequest,
  state: WorkingView,
  tailTokens: number,
): Promise<void> {
  const skip = new Set<number>();
  const summaryLimit = Math.floor(request.budgetTokens * settings.summaryShare);
  for (;;) {
    const tailStart = freshTailStart(state.items, tailTokens);
    const summaryTokens = summaryTokensBefore(state.items, tailStart);
    if (state.total() <= request.targetTokens && summaryTokens <= summaryLimit) return;
    const run = condenseRun(state.items, tailStart, condenseLimitsOf(settings, skip));
    if (run === undefined) return;
    const runItems = state.items.slice(run.start, run.end);
    // As for leaves: the threshold compaction leaves a run another worker is preparing to it.
    // The root phase still folds that run when the view stays over the target: reaching the
    // target comes first, and the worker's summary is then simply not used.
    if (request.liveLeavesAbove !== undefined && request.supply?.leased(runItems) === true) {
      skip.add((state.items[run.start] as ViewItem).position);
      continue;
    }
    const prepared = request.supply?.prepared(runItems);
    if (prepared !== undefined && state.replace(run, prepared.node)) {
      state.settled.push(prepared.chunkKey);
      continue;
    }
    const cap = condensedCap(settings.condensedTargetTokens, run.tokens);
    const replaced = state.replace(run, await buildFor(settings, request, state, run, cap));
    if (!replaced) skip.add((state.items[run.start] as ViewItem).position);
  }
}

async function rootPhase(
  settings: CompactionSettings,
  request: CompactViewRequest,
  state: WorkingView,
  tailTokens: number,
): Promise<void> {
  if (state.total() <= request.targetTokens) return;
  const tailStart = freshTailStart(state.items, tailTokens);
  if (tailStart === 0) return;
  const run: ItemRun = { start: 0, end: tailStart, tokens: runTokens(state.items, 0, tailStart) };
  const room = request.targetTokens - (state.total() - run.tokens);
  const cap = Math.min(room, run.tokens - 1);
  if (cap <= 0) return;
  state.replace(run, await buildFor(settings, request, state, run, cap));
}

async function buildFor(
  settings: CompactionSettings,
  request: CompactViewRequest,
  state: WorkingView,
  run: ItemRun,
  maxTokens: number,
): Promise<BuiltNode | undefined> {
  // Each node is a step with the event loop free before it: a summarizer that answers at once
  // (the extractive fallback, a stub) left a 10,000-message backlog's compaction one 0.4 s stretch.
  await nextMacrotask();
  if (request.signal?.aborted) throw abortReason(request.signal);
  const items = state.items.slice(run.start, run.end);
  const grant: SummarizerGrant = (await settings.grants?.grant({
    sessionId: request.sessionId,
    inputTokens: items.reduce((sum, item) => sum + item.tokens, 0),
    maxOutputTokens: maxTokens,
    waitForSlot: true,
  })) ?? { summarizer: settings.summarizer, settle: async () => undefined };
  try {
    return await buildNode(grantedSettings(settings, grant), {
      sessionId: request.sessionId,
      items,
      maxTokens,
      ...(request.customInstructions === undefined ? {} : { customInstructions: request.customInstructions }),
      ...(request.signal === undefined ? {} : { signal: request.signal }),
    });
  } finally {
    await grant.settle();
  }
}
