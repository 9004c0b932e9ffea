/**
 * M12, compaction behaviour: compactions per 100k ingested tokens, tokens removed per compaction,
 * summary/source compression, the deepest summary chain, tool results moved to side storage.
 */
import type { CompactionRecord } from "../harness/engine-session.js";
import type { SummarizerStats } from "../harness/provenance-summarizer.js";
import { type Figure, mean, notApplicable } from "./figure.js";

export interface CompactionReport {
  ingestedTokens: number;
  compactions: number;
  per100kTokens: number;
  tokensRemovedMean: Figure;
  /** Summary tokens over the tokens of the messages summarized. */
  compression: Figure;
  maxSummaryDepth: Figure;
  toolResultsMoved: Figure;
}

export function summarizeCompactions(
  records: readonly CompactionRecord[],
  ingestedTokens: number,
  summarizer: SummarizerStats,
): CompactionReport {
  const removed = records
    .filter((record) => record.tokensBefore !== undefined && record.tokensAfter !== undefined)
    .map((record) => (record.tokensBefore ?? 0) - (record.tokensAfter ?? 0));
  const none = notApplicable("no compactions");
  return {
    ingestedTokens,
    compactions: records.length,
    per100kTokens: ingestedTokens === 0 ? 0 : (records.length * 100_000) / ingestedTokens,
    tokensRemovedMean: removed.length === 0 ? none : mean(removed),
    compression: summarizer.sourceTokens === 0 ? none : summarizer.summaryTokens / summarizer.sourceTokens,
    maxSummaryDepth: summarizer.calls === 0 ? none : summarizer.maxDepth,
    // No engine in the bench moves tool results out yet; one that does reports it through its tools.
    toolResultsMoved: notApplicable("no side storage"),
  };
}
