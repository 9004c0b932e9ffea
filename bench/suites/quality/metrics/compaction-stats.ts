/**
 * M12, compaction behaviour: compactions per 100k ingested tokens, tokens removed per compaction,
 * summary/source compression, the deepest summary chain, tool results moved to side storage.
 *
 * Two sources: an engine that reports a store (`engine-stats.ts`) counts its own passes and
 * summaries, including the ones it runs in background maintenance, which the host never sees;
 * for every other engine the host's compaction events and the stub summarizer's tallies are the
 * whole story.
 */
import type { BenchEngineStats } from "../../../engine-stats.js";
import type { CompactionRecord } from "../harness/engine-session.js";
import type { SummarizerStats } from "../harness/provenance-summarizer.js";
import { type Figure, isNotApplicable, mean, type NotApplicable, notApplicable } from "./figure.js";

export interface CompactionReport {
  /** Where the figures come from: the engine's report, or the host's events and the stub's tallies. */
  source: "engine" | "host";
  ingestedTokens: number;
  compactions: Figure;
  per100kTokens: Figure;
  tokensRemovedMean: Figure;
  /** Summaries written (engine: stored; host: stub calls). */
  summaries: Figure;
  /** Summary tokens over the tokens of the messages summarized. */
  compression: Figure;
  maxSummaryDepth: Figure;
  toolResultsMoved: Figure;
}

const NONE = "no compactions";

/** M12 from the host's compaction events and the stub summarizer's tallies. */
export function summarizeCompactions(
  records: readonly CompactionRecord[],
  ingestedTokens: number,
  summarizer: SummarizerStats,
): CompactionReport {
  const removed = records
    .filter((record) => record.tokensBefore !== undefined && record.tokensAfter !== undefined)
    .map((record) => (record.tokensBefore ?? 0) - (record.tokensAfter ?? 0));
  return {
    source: "host",
    ingestedTokens,
    compactions: records.length,
    per100kTokens: per100k(records.length, ingestedTokens),
    tokensRemovedMean: removed.length === 0 ? notApplicable(NONE) : mean(removed),
    summaries: summarizer.calls,
    compression:
      summarizer.sourceTokens === 0
        ? notApplicable(NONE)
        : summarizer.summaryTokens / summarizer.sourceTokens,
    maxSummaryDepth: summarizer.calls === 0 ? notApplicable(NONE) : summarizer.maxDepth,
    // No engine in the bench moves tool results out yet; one that does reports it through its tools.
    toolResultsMoved: notApplicable("no side storage"),
  };
}

/**
 * M12 from the engine's own report (its passes, its summaries, its counter); every figure n/a
 * with the reason when the engine could not report.
 */
export function summarizeEngineCompactions(
  stats: BenchEngineStats | NotApplicable,
  ingestedTokens: number,
): CompactionReport {
  if (isNotApplicable(stats))
    return {
      source: "engine",
      ingestedTokens,
      compactions: stats,
      per100kTokens: stats,
      tokensRemovedMean: stats,
      summaries: stats,
      compression: stats,
      maxSummaryDepth: stats,
      toolResultsMoved: notApplicable("no side storage"),
    };
  const { passes, tokensRemovedTotal } = stats.compaction;
  const { count, summaryTokens, sourceTokens, deepestChain } = stats.summaries;
  return {
    source: "engine",
    ingestedTokens,
    compactions: passes,
    per100kTokens: per100k(passes, ingestedTokens),
    tokensRemovedMean: passes === 0 ? notApplicable(NONE) : tokensRemovedTotal / passes,
    summaries: count,
    compression: sourceTokens === 0 ? notApplicable(NONE) : summaryTokens / sourceTokens,
    maxSummaryDepth: count === 0 ? notApplicable(NONE) : deepestChain,
    toolResultsMoved: notApplicable("no side storage"),
  };
}

function per100k(compactions: number, ingestedTokens: number): number {
  return ingestedTokens === 0 ? 0 : (compactions * 100_000) / ingestedTokens;
}
