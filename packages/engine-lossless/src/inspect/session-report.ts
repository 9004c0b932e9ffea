/**
 * What `LosslessEngine.inspect` answers: the store's state and one session's figures, plus the
 * newest flight-recorder records, as plain JSON-ready data. Reading it never throws for a store
 * problem: an unusable store answers `available: false`, the reason and zeros.
 */
import type { SummarySpendReport } from "../prepare/spend-report.js";
import type { ProviderCacheFigures } from "../recorder/model-call-cache.js";
import { emptySessionReport } from "../store/records.js";
import type {
  LosslessStore,
  SessionReport,
  StoredAssemblyRecord,
  StoredCompactionPass,
} from "../store/store.js";
import {
  isEmptyCacheEffect,
  type PassCacheEffect,
  readPassCacheEffect,
  readProviderCache,
} from "./provider-cache.js";

export interface LosslessSessionReport {
  sessionId: string;
  store: {
    kind: string;
    /** The database with its WAL and shared-memory files. */
    bytesOnDisk: number;
    available: boolean;
    failure?: string;
  };
  session: SessionReport & {
    /** Summaries on the longest chain from a root down to a leaf: `deepestSummaryDepth + 1`, 0 without summaries. */
    deepestChain: number;
  };
  /** The newest recorded compaction pass of the session. */
  lastCompaction?: StoredCompactionPass;
  /**
   * What that pass did to the provider's prompt cache, when replies within ten minutes of it
   * reported usage (`inspect/provider-cache.ts`).
   */
  lastCompactionCacheEffect?: PassCacheEffect;
  /**
   * The provider's prompt cache over the model calls among the session's newest 200 messages, as
   * their replies reported it; absent when none reported usage.
   */
  providerCache?: ProviderCacheFigures;
  /** The newest recorded assembly of the session. */
  lastAssembly?: StoredAssemblyRecord;
  /** Summarizer spend, debt and prepared summaries (`LosslessEngine.spendReport`). */
  summarySpend?: SummarySpendReport;
  /**
   * Sessions the conversation had before this one that recall reaches (`prev1`, …), at most the
   * tools' eight; absent when the session's key is unknown (not given, and not seen in this
   * process) or the sessions could not be listed.
   */
  earlierSessions?: number;
}

/** Reads the report of `sessionId` from `store` (undefined when it could not be opened: `failure` says why). */
export async function readSessionReport(
  store: LosslessStore | undefined,
  failure: string | undefined,
  sessionId: string,
): Promise<LosslessSessionReport> {
  if (store === undefined)
    return unavailable(sessionId, "unknown", failure ?? "the store could not be opened");
  try {
    const session = await store.sessionReport(sessionId);
    const [lastCompaction] = await store.listCompactionPasses({ sessionId, limit: 1 });
    const [lastAssembly] = await store.listAssemblies(sessionId, 1);
    const providerCache = await readProviderCache(store, sessionId, session.messageCount);
    const lastCompactionCacheEffect =
      lastCompaction === undefined ? undefined : await readPassCacheEffect(store, lastCompaction);
    return {
      sessionId,
      store: { kind: store.kind, bytesOnDisk: await store.sizeOnDisk(), available: true },
      session: { ...session, deepestChain: session.summaryCount === 0 ? 0 : session.deepestSummaryDepth + 1 },
      ...(lastCompaction === undefined ? {} : { lastCompaction }),
      ...(lastCompactionCacheEffect === undefined || isEmptyCacheEffect(lastCompactionCacheEffect)
        ? {}
        : { lastCompactionCacheEffect }),
      ...(lastAssembly === undefined ? {} : { lastAssembly }),
      ...(providerCache === undefined ? {} : { providerCache }),
    };
  } catch (error) {
    return unavailable(sessionId, store.kind, error instanceof Error ? error.message : String(error));
  }
}

function unavailable(sessionId: string, kind: string, failure: string): LosslessSessionReport {
  return {
    sessionId,
    store: { kind, bytesOnDisk: 0, available: false, failure },
    session: { ...emptySessionReport(), deepestChain: 0 },
  };
}
