/**
 * The compaction half of the flight recorder: what a pass started from, and the record its end
 * (an outcome, or an error) makes of it. Building the record is pure; the engine writes it.
 */
import { describeError, EXTRACTIVE_SUMMARIZER_ID } from "@clew/core";
import type { CompactViewOutcome } from "../compaction/compact-view.js";
import type {
  CompactionLevel,
  CompactionOutcomeKind,
  CompactionTrigger,
  NewCompactionPass,
} from "../store/store.js";
import type { ViewItem } from "../view/session-view.js";

/** What the record needs from the start of a pass. */
export interface PassStart {
  passId: string;
  trigger: CompactionTrigger;
  startedAt: number;
  items: readonly ViewItem[];
  viewVersion: number;
  targetTokens: number;
  budgetTokens: number;
  /** The configured summarizer's id. */
  summarizer: string;
}

/** How the pass ended: its outcome and the view version after its write, or the error it threw. */
export type PassEnd =
  | { outcome: CompactViewOutcome; viewVersionAfter: number; durationMs: number }
  | { error: unknown; durationMs: number };

export function compactionPassRecord(start: PassStart, end: PassEnd): NewCompactionPass {
  const common = {
    passId: start.passId,
    trigger: start.trigger,
    startedAt: start.startedAt,
    durationMs: Math.max(0, end.durationMs),
    targetTokens: start.targetTokens,
    budgetTokens: start.budgetTokens,
    summarizer: start.summarizer,
    viewVersionBefore: start.viewVersion,
    ...newestSeq(start.items),
  };
  if ("error" in end) {
    const tokens = start.items.reduce((sum, item) => sum + (item.orphan ? 0 : item.tokens), 0);
    return {
      ...common,
      level: "none",
      outcome: "failed",
      reason: describeError(end.error),
      tokensBefore: tokens,
      tokensAfter: tokens,
      inputs: { messages: 0, summaries: 0, tokens: 0 },
      outputs: { leaf: 0, condensed: 0, tokens: 0, prepared: 0, upgraded: 0 },
      summaryIds: [],
      writtenBy: [],
      viewVersionAfter: start.viewVersion,
    };
  }
  const { outcome } = end;
  const summaries = outcome.write.summaries;
  return {
    ...common,
    level: levelOf(outcome, start.summarizer),
    outcome: outcomeKindOf(outcome),
    ...(outcome.reason === undefined ? {} : { reason: outcome.reason }),
    tokensBefore: outcome.tokensBefore,
    tokensAfter: outcome.tokensAfter,
    inputs: inputsOf(start.items, outcome),
    outputs: {
      leaf: outcome.leafNodes,
      condensed: outcome.condensedNodes,
      tokens: summaries.reduce((sum, summary) => sum + summary.tokens, 0),
      prepared: outcome.preparedSummaries,
      upgraded: outcome.upgradedSummaries,
    },
    summaryIds: summaries.map((summary) => summary.summaryId),
    writtenBy: [...new Set(summaries.map((summary) => summary.summarizer))],
    ...costOf(summaries),
    viewVersionAfter: end.viewVersionAfter,
  };
}

/** The newest stored message among the view's items: a raw item's seq, or a summary's last source. */
function newestSeq(items: readonly ViewItem[]): Pick<NewCompactionPass, "newestSeq"> {
  for (let index = items.length - 1; index >= 0; index--) {
    const item = items[index] as ViewItem;
    if (item.ref.kind === "message") return { newestSeq: item.ref.seq };
    const ends = item.summary?.sourceRanges.map(([, last]) => last) ?? [];
    if (ends.length > 0) return { newestSeq: Math.max(...ends) };
  }
  return {};
}

/**
 * What the pass's summaries cost, prepared ones included (each keeps what making it cost): the
 * sum of those that reported a cost; absent when none did.
 */
function costOf(summaries: ReadonlyArray<{ costUsd?: number }>): { costUsd?: number } {
  const costs = summaries.flatMap((summary) => (summary.costUsd === undefined ? [] : [summary.costUsd]));
  return costs.length === 0 ? {} : { costUsd: costs.reduce((sum, cost) => sum + cost, 0) };
}

function outcomeKindOf(outcome: CompactViewOutcome): CompactionOutcomeKind {
  if (outcome.aborted !== undefined) return "aborted";
  if (!outcome.reached) return "short";
  return outcome.tokensAfter < outcome.tokensBefore ? "compacted" : "unchanged";
}

/**
 * `fallback` when a summary was written by anything but the configured summarizer (its merge of
 * child summaries excepted, which is how the extractive summarizer condenses); `root` when the
 * pass leaves one summary of its own making in front of raw messages only, after condensing;
 * else the deepest kind of node it wrote; `upgrade` when it wrote nothing but upgrades.
 */
function levelOf(outcome: CompactViewOutcome, configured: string): CompactionLevel {
  const summaries = outcome.write.summaries;
  if (summaries.length === 0) return "none";
  if (outcome.leafNodes + outcome.condensedNodes === 0) return "upgrade";
  const fallback = summaries.some(
    (summary) =>
      summary.summarizer !== configured &&
      !(configured === EXTRACTIVE_SUMMARIZER_ID && summary.summarizer === "extractive-merge"),
  );
  if (fallback) return "fallback";
  if (outcome.condensedNodes === 0) return "leaf";
  const built = new Set(summaries.map((summary) => summary.summaryId));
  const viewSummaries = outcome.items.filter((item) => item.ref.kind === "summary");
  const [first] = outcome.items;
  const singleRoot =
    viewSummaries.length === 1 &&
    first?.ref.kind === "summary" &&
    built.has(first.ref.summaryId) &&
    first.summary?.kind === "condensed";
  return singleRoot ? "root" : "condensed";
}

/** The items of the starting view the pass replaced (its own intermediate nodes excluded). */
function inputsOf(items: readonly ViewItem[], outcome: CompactViewOutcome): NewCompactionPass["inputs"] {
  const tokensByLabel = new Map(items.map((item) => [labelOf(item.ref), item.tokens]));
  const inputs = { messages: 0, summaries: 0, tokens: 0 };
  for (const edit of outcome.write.edits) {
    for (const { ref } of edit.replace) {
      const tokens = tokensByLabel.get(labelOf(ref));
      if (tokens === undefined) continue;
      tokensByLabel.delete(labelOf(ref));
      if (ref.kind === "message") inputs.messages += 1;
      else inputs.summaries += 1;
      inputs.tokens += tokens;
    }
  }
  return inputs;
}

function labelOf(ref: ViewItem["ref"]): string {
  return ref.kind === "message" ? `m${ref.seq}` : ref.summaryId;
}
