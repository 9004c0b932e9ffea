/**
 * What `LosslessEngine.spendReport` answers: a session's summarizer spend against its budget, the
 * debt (summaries written extractively because the budget was exhausted), and its summary jobs.
 * Reading it never throws: an unusable store answers `available: false` with the reason.
 */
import { describeError } from "@clew/core";
import { leaseRuns } from "../compaction/leaf-supply.js";
import type { LosslessStore, SummarySpendTotals } from "../store/store.js";

export interface SummarySpendReport {
  sessionId: string;
  available: boolean;
  failure?: string;
  /** The configured summarizer; `extractive` makes no model calls and spends nothing. */
  summarizer: string;
  /** The budget: `limitTokens` per session over a rolling window of `windowHours`. */
  limitTokens: number;
  windowHours: number;
  /** The rolling window now: what counts toward the limit, and what is left of it. */
  window: SummarySpendTotals & { remainingTokens: number };
  /** Everything the ledger holds for the session. */
  lifetime: SummarySpendTotals;
  /**
   * Prepared summaries waiting to be published (`upgrades` of them rewrite a summary written
   * without the model, see `SummaryJobKind`), and jobs a worker is preparing now.
   */
  jobs: { prepared: number; upgrades: number; leased: number };
}

export interface SpendReportSettings {
  summarizer: string;
  limitTokens: number;
  windowHours: number;
  now: () => number;
}

const NO_SPEND: SummarySpendTotals = { spentTokens: 0, calls: 0, debtTokens: 0, debtChunks: 0 };

export async function readSpendReport(
  store: LosslessStore | undefined,
  failure: string,
  sessionId: string,
  settings: SpendReportSettings,
): Promise<SummarySpendReport> {
  const base = {
    sessionId,
    summarizer: settings.summarizer,
    limitTokens: settings.limitTokens,
    windowHours: settings.windowHours,
  };
  const empty = {
    ...base,
    window: { ...NO_SPEND, remainingTokens: settings.limitTokens },
    lifetime: NO_SPEND,
    jobs: { prepared: 0, upgrades: 0, leased: 0 },
  };
  if (store === undefined) return { ...empty, available: false, failure };
  try {
    const now = settings.now();
    const window = await store.summarySpend(sessionId, now - settings.windowHours * 3_600_000 + 1);
    const lifetime = await store.summarySpend(sessionId, Number.MIN_SAFE_INTEGER);
    const jobs = await store.listSummaryJobs(sessionId);
    return {
      ...base,
      available: true,
      window: { ...window, remainingTokens: Math.max(0, settings.limitTokens - window.spentTokens) },
      lifetime,
      jobs: {
        prepared: jobs.filter((job) => job.prepared !== undefined).length,
        upgrades: jobs.filter((job) => job.prepared !== undefined && job.kind === "upgrade").length,
        leased: jobs.filter((job) => leaseRuns(job, now)).length,
      },
    };
  } catch (error) {
    return { ...empty, available: false, failure: describeError(error) };
  }
}
