/**
 * The numbers a compaction works toward, and how its outcome reads to the host.
 *
 * Budget: the host's `tokenBudget` (params, then runtimeContext, then runtimeSettings) minus the
 * host's reserve (`runtimeSettings.limits.maxOutputTokens`), where the reserve is capped the way
 * the host caps it (it always leaves `min(8000, budget / 2)`); without a host budget, the last
 * budget the session was assembled with, which is already net of the reserve. Target: that budget
 * minus the recall policy's tokens and the safety margin, the same figure assembly fits into, so
 * a view compacted to the target assembles without leaving anything out.
 */
import type { CompactParams, CompactResult } from "@clew/core";
import type { CompactViewOutcome } from "./compact-view.js";

export interface CompactionTarget {
  /** The budget the fresh tail and summary share are measured against. */
  budgetTokens: number;
  targetTokens: number;
  /** Where the budget came from, for the result's details. */
  source: "host" | "session" | "default";
}

export function compactionTarget(
  params: CompactParams,
  remembered: number | undefined,
  fallback: number,
  usable: (budget: number) => number,
): CompactionTarget {
  const hostBudget =
    positive(params.tokenBudget) ??
    positive(params.runtimeContext?.tokenBudget) ??
    positive(params.runtimeSettings?.limits.promptTokenBudget);
  if (hostBudget !== undefined) {
    const reserve = positive(params.runtimeSettings?.limits.maxOutputTokens) ?? 0;
    const cappedReserve = Math.max(
      0,
      Math.min(reserve, hostBudget - Math.min(8_000, Math.floor(hostBudget / 2))),
    );
    const budgetTokens = hostBudget - cappedReserve;
    return { budgetTokens, targetTokens: usable(budgetTokens), source: "host" };
  }
  const budgetTokens = remembered ?? fallback;
  return {
    budgetTokens,
    targetTokens: usable(budgetTokens),
    source: remembered === undefined ? "default" : "session",
  };
}

/** The host's view of an outcome: `compacted` only when the view got smaller, `ok` only at target. */
export function compactResultOf(outcome: CompactViewOutcome, target: CompactionTarget): CompactResult {
  const compacted = outcome.tokensAfter < outcome.tokensBefore;
  const details = {
    targetTokens: target.targetTokens,
    budgetTokens: target.budgetTokens,
    budgetSource: target.source,
    leafSummaries: outcome.leafNodes,
    condensedSummaries: outcome.condensedNodes,
    preparedSummaries: outcome.preparedSummaries,
    upgradedSummaries: outcome.upgradedSummaries,
    summaryIds: outcome.write.summaries.map((summary) => summary.summaryId),
  };
  const result = { tokensBefore: outcome.tokensBefore, tokensAfter: outcome.tokensAfter, details };
  if (!outcome.reached) {
    return { ok: false, compacted, reason: outcome.reason ?? "the target was not reached", result };
  }
  return compacted
    ? { ok: true, compacted: true, result }
    : { ok: true, compacted: false, reason: outcome.reason ?? "nothing to compact", result };
}

function positive(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? Math.floor(value) : undefined;
}
