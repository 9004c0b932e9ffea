/**
 * The engine's summary preparation, built from its options: one concurrency limit and one spend
 * gate for every summarizer call of the engine, the background preparer (absent with
 * `prepareSummaries: false`), and what a compaction reads of it (`leafSupply`).
 */
import { type LeafSupply, leafSupplyOf } from "../compaction/leaf-supply.js";
import type { ResolvedOptions } from "../options.js";
import type { LosslessStore } from "../store/store.js";
import { HostModelSummarizer } from "../summarizer/host-model-summarizer.js";
import { ConcurrencyLimiter } from "./concurrency-limiter.js";
import { readSpendReport, type SummarySpendReport } from "./spend-report.js";
import { type PreparationInput, SummaryPreparer } from "./summary-preparer.js";
import { SummarySpendGate } from "./summary-spend.js";

const HOUR_MS = 3_600_000;

export class SummaryPreparation {
  readonly grants: SummarySpendGate;
  private readonly preparer: SummaryPreparer | undefined;

  constructor(
    private readonly store: LosslessStore,
    private readonly options: ResolvedOptions,
  ) {
    const limiter = new ConcurrencyLimiter(options.summarizerConcurrency);
    this.grants = new SummarySpendGate({
      store,
      summarizer: options.summarizer,
      limiter,
      counter: options.tokenCounter,
      limitTokens: options.summarySpendTokensPerSession,
      windowMs: options.summarySpendWindowHours * HOUR_MS,
      now: options.now,
    });
    if (!options.prepareSummaries) return;
    this.preparer = new SummaryPreparer({
      store,
      node: { ...options, counter: options.tokenCounter },
      leafChunkTokens: options.leafChunkTokens,
      leafTargetTokens: options.leafTargetTokens,
      condensedTargetTokens: options.condensedTargetTokens,
      condenseFanIn: options.condenseFanIn,
      freshTailShare: options.freshTailShare,
      summaryShare: options.summaryShare,
      grants: this.grants,
      limiter,
      owner: options.workerId,
      // A live worker's call ends within one timeout (then the extractive fallback runs).
      leaseMs: options.summarizerTimeoutMs * 2,
      now: options.now,
      logger: options.logger,
    });
  }

  /** Starts preparing the session's closed chunks in the background. Never throws. */
  schedule(sessionId: string, input: () => Promise<PreparationInput>): void {
    this.preparer?.schedule(sessionId, input);
  }

  /** The session's prepared summaries and running leases, for one compaction. */
  async leafSupply(sessionId: string): Promise<LeafSupply> {
    return leafSupplyOf(await this.store.listSummaryJobs(sessionId), this.options.now());
  }

  idle(): Promise<void> {
    return this.preparer?.idle() ?? Promise.resolve();
  }

  stop(): Promise<void> {
    return this.preparer?.stop() ?? Promise.resolve();
  }
}

/** The spend report of `sessionId` under `options` (see `readSpendReport`). Never throws. */
export function spendReportOf(
  store: LosslessStore | undefined,
  failure: string,
  sessionId: string,
  options: ResolvedOptions,
): Promise<SummarySpendReport> {
  return readSpendReport(store, failure, sessionId, {
    summarizer:
      options.summarizer instanceof HostModelSummarizer ? options.summarizer.label : options.summarizer.id,
    limitTokens: options.summarySpendTokensPerSession,
    windowHours: options.summarySpendWindowHours,
    now: options.now,
  });
}
