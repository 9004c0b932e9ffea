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
  /** The first entry the rebuilt context keeps raw. */
  firstKeptEntryId: string;
  /** Tokens of the kept raw messages. */
  keptTokens: number;
}

export type CompactionPlanResult = { ok: true; plan: CompactionPlan } | { ok: false; reason: string };

/**
 * Decides where a compaction cuts the active branch (root first).
 *
 * The span starts where the previous compaction's kept messages start, so a compaction right
 * after another one can still fold kept messages into the summary when they exceed the window. Walking back from the
 * newest message, the cut lands on the nearest message at or before the point where the kept
 * messages reach `keepRecentTokens`, so at least that much stays raw. A cut never lands on a tool
 * result, so a tool call is never separated from its result. When the cut falls inside a turn,
 * the turn's beginning is summarized separately from the older history.
 */
export function planCompaction(
  branch: readonly TranscriptEntry[],
  options: { keepRecentTokens: number; counter: TokenCounter },
): CompactionPlanResult {
  const previousIndex = findLastIndex(branch, (entry) => entry.type === "compaction");
  const previous = previousIndex >= 0 ? (branch[previousIndex] as CompactionEntry) : undefined;
  const regionStart = spanStart(branch, previous, previousIndex);
  const region = branch.slice(regionStart).filter((entry) => entry.type !== "compaction");
  const tokens = region.map((entry) =>
    isModelMessage(entry) ? options.counter.countMessage(messageOf(entry)) : 0,
  );

  let kept = 0;
  let threshold = -1;
  for (let index = region.length - 1; index >= 0; index--) {
    kept += tokens[index] ?? 0;
    if (kept >= options.keepRecentTokens) {
      threshold = index;
      break;
    }
  }
  if (threshold <= 0)
    return { ok: false, reason: "nothing to compact: the whole history fits in the recent window" };
  let cut = threshold;
  while (cut > 0 && !isValidCut(region[cut])) cut--;
  if (cut <= 0) return { ok: false, reason: "nothing to compact: no place to cut before the recent window" };
  while (cut > 0 && region[cut - 1] !== undefined && !isModelMessage(region[cut - 1] as TranscriptEntry))
    cut--;
  if (!region.slice(0, cut).some(isModelMessage)) {
    return { ok: false, reason: "nothing to compact: no messages before the recent window" };
  }

  const cutEntry = region[cut] as TranscriptEntry;
  const firstKeptMessage = region.findIndex((entry, index) => index >= cut && isModelMessage(entry));
  const turnStart = isUserTurnStart(region[firstKeptMessage]) ? -1 : findTurnStart(region, firstKeptMessage);
  const historyEnd = turnStart >= 0 ? turnStart : cut;
  const plan: CompactionPlan = {
    previous,
    history: region.slice(0, historyEnd).filter(isModelMessage).map(messageOf),
    turnPrefix: turnStart >= 0 ? region.slice(turnStart, cut).filter(isModelMessage).map(messageOf) : [],
    firstKeptEntryId: cutEntry.id,
    keptTokens: tokens.slice(cut).reduce((sum, value) => sum + value, 0),
  };
  return { ok: true, plan };
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
