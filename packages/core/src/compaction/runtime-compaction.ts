import type { SessionRuntimeCompactor } from "../host/host-options.js";
import type { Logger } from "../logger.js";
import { createExtractiveSummarizer } from "../summarizer/extractive-summarizer.js";
import { summarizeWithFallback } from "../summarizer/fallback-summarizer.js";
import { extractIdentifiers, extractIdentifiersFromMessages } from "../summarizer/identifiers.js";
import type { Summarizer } from "../summarizer/summarizer.js";
import { ensureIdentifiers } from "../summarizer/summary-format.js";
import type { TokenCounter } from "../tokens/token-counter.js";
import { createSummaryRuntimeCompactor } from "./runtime-compactor.js";
import type { PreserveIdentifiers, SummarizeSpan } from "./summary-compaction.js";

export interface RuntimeCompactionOptions {
  counter: TokenCounter;
  /** The model-backed summarizer, when a model is configured; without one the extractive one runs. */
  modelSummarizer?: Summarizer;
  /** How long the model may take before the extractive summary is used. Default 120 s. */
  modelTimeoutMs?: number;
  keepRecentTokens?: number;
  reserveTokens?: number;
  logger?: Logger;
  now?: () => number;
}

/** Below the 180 s compaction watchdog, so a slow model still leaves time for the fallback. */
export const DEFAULT_SUMMARY_MODEL_TIMEOUT_MS = 120_000;

/**
 * The runtime compaction behind `legacy` (and every engine that delegates): summary compaction of
 * the stored transcript, summarized by the model when one is configured and by the deterministic
 * extractive summarizer when none is, or when the model fails, answers nothing, or times out. The
 * compaction entry records which one wrote the summary.
 */
export function createRuntimeCompaction(options: RuntimeCompactionOptions): SessionRuntimeCompactor {
  const extractive = createExtractiveSummarizer();
  const model = options.modelSummarizer;
  const summarize: SummarizeSpan =
    model === undefined
      ? async (input) => ({ summary: await extractive.summarize(input), summarizerId: extractive.id })
      : (input) =>
          summarizeWithFallback(
            {
              primary: model,
              fallback: extractive,
              timeoutMs: options.modelTimeoutMs ?? DEFAULT_SUMMARY_MODEL_TIMEOUT_MS,
              ...(options.logger === undefined ? {} : { logger: options.logger }),
            },
            input,
          );
  const preserveIdentifiers: PreserveIdentifiers = (summary, sources) =>
    ensureIdentifiers(summary, [
      ...(sources.previousSummary === undefined ? [] : extractIdentifiers(sources.previousSummary)),
      ...extractIdentifiersFromMessages(sources.messages),
    ]);
  return createSummaryRuntimeCompactor({
    summarize,
    preserveIdentifiers,
    counter: options.counter,
    ...(options.keepRecentTokens === undefined ? {} : { keepRecentTokens: options.keepRecentTokens }),
    ...(options.reserveTokens === undefined ? {} : { reserveTokens: options.reserveTokens }),
    ...(options.now === undefined ? {} : { now: options.now }),
  });
}
