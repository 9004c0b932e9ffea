import type { AgentMessage } from "../messages.js";
import type { TokenCounter } from "../tokens/token-counter.js";
import type { CompactionEntry, TranscriptEntry } from "../transcript/entries.js";

export interface CompactionPlan {
  /** The compaction this one continues from. */
  previous: CompactionEntry | undefined;
  /** Messages summarized as history, oldest first (may be empty when only a turn prefix goes). */
  history: AgentMessage[];
  /** The start of a turn the cut split, summarized on its own so the kept rest still reads. */
  turnPrefix: AgentMessage[];
  /**
   * The first entry the rebuilt context keeps raw; undefined when nothing is kept (the compaction
   * entry then points at itself, as pi does).
   */
  firstKeptEntryId: string | undefined;
  /** Tokens of the kept raw messages. */
  keptTokens: number;
}

export type CompactionPlanResult = { ok: true; plan: CompactionPlan } | { ok: false; reason: string };

export interface PlanCompactionOptions {
  /** Raw recent history to keep: the cut lands where the kept messages reach this much. */
  keepRecentTokens: number;
  /**
   * The most the kept messages may hold. When keeping `keepRecentTokens` would keep more (huge tool
   * results right before that point, or no place to cut before it), the cut moves forward into the
   * recent part. Unset: no limit.
   */
  maxKeptTokens?: number;
  counter: TokenCounter;
}

/**
 * Decides where a compaction cuts the active branch (root first).
 *
 * The span starts where the previous compaction's kept messages start, so a compaction right
 * after another one can still fold kept messages into the summary when they exceed the window. Walking back from the
 * newest message, the cut lands on the nearest message at or before the point where the kept
 * messages reach `keepRecentTokens`, so at least that much stays raw. When that would keep more
 * than `maxKeptTokens`, the cut moves forward to the oldest place that keeps no more than that, or,
 * when even the newest step is larger, to the newest place to cut (the request-time tool-result
 * cap deals with the rest); when there is no such place and no tool result is waiting to be read,
 * nothing is kept. A cut never lands on a tool result, so a tool call is never separated from its
 * result. When the cut falls inside a turn, the turn's beginning is summarized separately
 * from the older history. Never changes the branch.
 */
export function planCompaction(
  branch: readonly TranscriptEntry[],
  options: PlanCompactionOptions,
): CompactionPlanResult {
  const previousIndex = findLastIndex(branch, (entry) => entry.type === "compaction");
  const previous = previousIndex >= 0 ? (branch[previousIndex] as CompactionEntry) : undefined;
  const regionStart = spanStart(branch, previous, previousIndex);
  const region = branch.slice(regionStart).filter((entry) => entry.type !== "compaction");
  const tokens = region.map((entry) =>
    isModelMessage(entry) ? options.counter.countMessage(messageOf(entry)) : 0,
  );
  const kept = keptTokensFrom(tokens);

  const chosen = chooseCut(region, kept, options);
  if (!chosen.ok) return chosen;
  let cut = chosen.cut;
  const keepsNothing = cut >= region.length;
  while (
    !keepsNothing &&
    cut > 0 &&
    region[cut - 1] !== undefined &&
    !isModelMessage(region[cut - 1] as TranscriptEntry)
  )
    cut--;
  if (!region.slice(0, cut).some(isModelMessage)) {
    return { ok: false, reason: "nothing to compact: no messages before the recent window" };
  }

  const firstKeptMessage = region.findIndex((entry, index) => index >= cut && isModelMessage(entry));
  const turnStart = isUserTurnStart(region[firstKeptMessage]) ? -1 : findTurnStart(region, firstKeptMessage);
  const historyEnd = turnStart >= 0 ? turnStart : cut;
  const plan: CompactionPlan = {
    previous,
    history: region.slice(0, historyEnd).filter(isModelMessage).map(messageOf),
    turnPrefix: turnStart >= 0 ? region.slice(turnStart, cut).filter(isModelMessage).map(messageOf) : [],
    firstKeptEntryId: region[cut]?.id,
    keptTokens: kept[cut] ?? 0,
  };
  return { ok: true, plan };
}

/** `kept[index]`: tokens of the region from `index` to the end. */
function keptTokensFrom(tokens: readonly number[]): number[] {
  const kept = new Array<number>(tokens.length + 1).fill(0);
  for (let index = tokens.length - 1; index >= 0; index--)
    kept[index] = (kept[index + 1] ?? 0) + (tokens[index] ?? 0);
  return kept;
}

/**
 * The region index the kept part starts at (> 0 and a valid cut, or the region's length when
 * nothing is kept), or why there is none.
 */
function chooseCut(
  region: readonly TranscriptEntry[],
  kept: readonly number[],
  options: PlanCompactionOptions,
): { ok: true; cut: number } | { ok: false; reason: string } {
  let threshold = region.length - 1;
  while (threshold >= 0 && (kept[threshold] ?? 0) < options.keepRecentTokens) threshold--;
  let cut = threshold;
  while (cut > 0 && !isValidCut(region[cut])) cut--;
  const limit = options.maxKeptTokens;
  if (cut > 0 && (limit === undefined || (kept[cut] ?? 0) <= limit)) return { ok: true, cut };
  if (limit === undefined || (kept[0] ?? 0) <= limit) {
    return threshold <= 0
      ? { ok: false, reason: "nothing to compact: the whole history fits in the recent window" }
      : { ok: false, reason: "nothing to compact: no place to cut before the recent window" };
  }
  return cutWithinLimit(region, kept, limit);
}

/**
 * The oldest valid cut keeping at most `limit`; else the newest valid cut; else, when no tool
 * result waits to be read, the region's length (nothing kept).
 */
function cutWithinLimit(
  region: readonly TranscriptEntry[],
  kept: readonly number[],
  limit: number,
): { ok: true; cut: number } | { ok: false; reason: string } {
  let newest = -1;
  for (let index = 1; index < region.length; index++) {
    if (!isValidCut(region[index])) continue;
    if ((kept[index] ?? 0) <= limit) return { ok: true, cut: index };
    newest = index;
  }
  if (newest > 0) return { ok: true, cut: newest };
  // A message that alone is over the limit (a pasted log, a user's bash run) goes into the summary,
  // unless the model is waiting to read tool results, which the request-time cap shortens instead.
  const lastMessage = findLastIndex(region, isModelMessage);
  if (lastMessage >= 0 && roleOf(region[lastMessage]) !== "toolResult")
    return { ok: true, cut: region.length };
  return { ok: false, reason: "nothing to compact: no place to cut inside the recent window" };
}

function spanStart(
  branch: readonly TranscriptEntry[],
  previous: CompactionEntry | undefined,
  previousIndex: number,
): number {
  if (previous === undefined) return 0;
  const kept = branch.findIndex((entry) => entry.id === previous.firstKeptEntryId);
  return kept >= 0 && kept < previousIndex ? kept : previousIndex + 1;
}

function isModelMessage(entry: TranscriptEntry | undefined): boolean {
  return entry !== undefined && (entry.type === "message" || entry.type === "custom_message");
}

function messageOf(entry: TranscriptEntry): AgentMessage {
  if (entry.type === "message") return entry.message as AgentMessage;
  const content = entry.content;
  return {
    role: "user",
    content: typeof content === "string" ? content : JSON.stringify(content),
    timestamp: 0,
  };
}

function roleOf(entry: TranscriptEntry | undefined): string | undefined {
  if (entry === undefined) return undefined;
  if (entry.type === "custom_message") return "user";
  if (entry.type !== "message") return undefined;
  const message = entry.message as { role?: unknown };
  return typeof message?.role === "string" ? message.role : undefined;
}

function isValidCut(entry: TranscriptEntry | undefined): boolean {
  return isModelMessage(entry) && roleOf(entry) !== "toolResult";
}

function isUserTurnStart(entry: TranscriptEntry | undefined): boolean {
  const role = roleOf(entry);
  return role === "user" || role === "bashExecution";
}

function findTurnStart(region: readonly TranscriptEntry[], from: number): number {
  for (let index = from - 1; index >= 0; index--) if (isUserTurnStart(region[index])) return index;
  return -1;
}

function findLastIndex<T>(items: readonly T[], predicate: (item: T) => boolean): number {
  for (let index = items.length - 1; index >= 0; index--) if (predicate(items[index] as T)) return index;
  return -1;
}
