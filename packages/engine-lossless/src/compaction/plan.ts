/**
 * Where compaction may cut, as pure functions over the view's items. Every run returned starts at
 * a group start (or at an orphan tool result opening a raw run) and ends where the next group
 * starts, so a tool call is never summarized while its result stays raw.
 */
import type { ViewItem } from "../view/session-view.js";

/** Items `[start, end)` of the working view. */
export interface ItemRun {
  start: number;
  end: number;
  /** Tokens the run costs in context (orphans cost nothing: they are never assembled). */
  tokens: number;
}

export function assembledTokens(item: ViewItem): number {
  return item.orphan ? 0 : item.tokens;
}

export function runTokens(items: readonly ViewItem[], start: number, end: number): number {
  let sum = 0;
  for (let index = start; index < end; index++) sum += assembledTokens(items[index] as ViewItem);
  return sum;
}

/**
 * Tokens of the summaries among `items[0, end)`: what `summaryShare` limits. Raw messages there
 * are not counted: they wait for a leaf (the threshold compaction leaves chunks still being
 * prepared raw), and counting them made compaction condense them, one live model call per small
 * run of a summary and raw messages, into ever deeper chains.
 */
export function summaryTokensBefore(items: readonly ViewItem[], end: number): number {
  let sum = 0;
  for (let index = 0; index < end; index++) {
    const item = items[index] as ViewItem;
    if (item.summary !== undefined) sum += assembledTokens(item);
  }
  return sum;
}

/**
 * Index of the first item of the fresh tail: the newest items that fit in `tailTokens`, starting
 * at a group start, and at least the newest group whatever its size.
 */
export function freshTailStart(items: readonly ViewItem[], tailTokens: number): number {
  let start = items.length;
  let suffix = 0;
  for (let index = items.length - 1; index >= 0; index--) {
    const item = items[index] as ViewItem;
    suffix += assembledTokens(item);
    if (!item.startsGroup) continue;
    if (start === items.length || suffix <= tailTokens) start = index;
    else break;
  }
  return start;
}

/** Where the group opened at `index` ends (the next group start, a summary, or `limit`). */
function groupEnd(items: readonly ViewItem[], index: number, limit: number): number {
  let end = index + 1;
  while (end < limit && !(items[end] as ViewItem).startsGroup) end++;
  return end;
}

/** A leaf chunk, and whether its end is final. */
export interface LeafChunk extends ItemRun {
  /**
   * True when the chunk ended because its next group did not fit or a summary follows: it stays
   * the same chunk however far `limit` later moves. False for the chunk cut short by `limit`.
   */
  closed: boolean;
}

/**
 * Chunks of raw messages before `limit`, oldest first: each run of raw items is cut into chunks of
 * whole groups of at most `maxTokens` (a single larger group is a chunk of its own). Cutting is
 * greedy from the run's start, so a closed chunk's boundaries never depend on `limit`; that is
 * what lets a chunk's summary be prepared before compaction reaches it.
 */
export function leafChunks(items: readonly ViewItem[], limit: number, maxTokens: number): LeafChunk[] {
  const chunks: LeafChunk[] = [];
  let index = 0;
  while (index < limit) {
    if ((items[index] as ViewItem).ref.kind !== "message") {
      index++;
      continue;
    }
    let chunkStart = index;
    let tokens = 0;
    while (index < limit && (items[index] as ViewItem).ref.kind === "message") {
      const end = groupEnd(items, index, limit);
      const groupTokens = runTokens(items, index, end);
      if (index > chunkStart && tokens + groupTokens > maxTokens) {
        chunks.push({ start: chunkStart, end: index, tokens, closed: true });
        chunkStart = index;
        tokens = 0;
      }
      tokens += groupTokens;
      index = end;
    }
    chunks.push({ start: chunkStart, end: index, tokens, closed: index < limit });
  }
  return chunks;
}

/** Depth for condensing: summaries by their depth, raw stragglers below every summary. */
function depthOf(item: ViewItem): number {
  return item.summary?.depth ?? -1;
}

export interface CondenseLimits {
  maxFanIn: number;
  maxInputTokens: number;
  /** Start positions of runs already found not worth condensing in this compaction. */
  skip: ReadonlySet<number>;
}

/**
 * The limits of condensing under the engine's settings: compaction and summary preparation take
 * them from here, so a prepared condensed node is for the run compaction picks.
 */
export function condenseLimitsOf(
  settings: { condenseFanIn: number; leafChunkTokens: number },
  skip: ReadonlySet<number> = new Set(),
): CondenseLimits {
  return { maxFanIn: settings.condenseFanIn, maxInputTokens: settings.leafChunkTokens, skip };
}

/**
 * The next run to condense before `limit`: the oldest run of at least two items at the shallowest
 * depth that has one, with at least one summary, at most `maxFanIn` items and `maxInputTokens`
 * (whole groups, so a straggler's tool results come along).
 */
export function condenseRun(
  items: readonly ViewItem[],
  limit: number,
  limits: CondenseLimits,
): ItemRun | undefined {
  const depths = [...new Set(items.slice(0, limit).map(depthOf))].filter((depth) => depth >= 0);
  for (const depth of depths.sort((left, right) => left - right)) {
    let index = 0;
    while (index < limit) {
      const run = runFrom(items, index, limit, depth, limits);
      const item = items[index] as ViewItem;
      if (run !== undefined && run.end - run.start >= 2 && !limits.skip.has(item.position)) {
        const hasSummary = items.slice(run.start, run.end).some((entry) => entry.summary !== undefined);
        if (hasSummary) return run;
      }
      index = run === undefined || run.end <= index ? index + 1 : run.end;
    }
  }
  return undefined;
}

function runFrom(
  items: readonly ViewItem[],
  start: number,
  limit: number,
  depth: number,
  limits: CondenseLimits,
): ItemRun | undefined {
  let end = start;
  let tokens = 0;
  while (end < limit && depthOf(items[end] as ViewItem) <= depth && end - start < limits.maxFanIn) {
    const next = groupEnd(items, end, limit);
    const groupTokens = runTokens(items, end, next);
    if (end > start && tokens + groupTokens > limits.maxInputTokens) break;
    tokens += groupTokens;
    end = next;
  }
  return end === start ? undefined : { start, end, tokens };
}

/** Sorted, merged inclusive ranges covering `seqs` and `ranges`. */
export function mergeRanges(
  ranges: ReadonlyArray<readonly [number, number]>,
  seqs: readonly number[] = [],
): Array<[number, number]> {
  const all: Array<[number, number]> = [...ranges.map(([first, last]): [number, number] => [first, last])];
  for (const seq of seqs) all.push([seq, seq]);
  all.sort((left, right) => left[0] - right[0]);
  const merged: Array<[number, number]> = [];
  for (const [first, last] of all) {
    const previous = merged.at(-1);
    if (previous !== undefined && first <= previous[1] + 1) previous[1] = Math.max(previous[1], last);
    else merged.push([first, last]);
  }
  return merged;
}
