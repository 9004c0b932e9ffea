/**
 * The stats seam of the quality suite: what an engine that keeps its own store reports about it.
 * Such an engine keeps its messages and summaries outside the transcript (the lossless engine in
 * SQLite), so disk use (M11), compactions (M12) and whether a bootstrap has anything to fill
 * (M10, M13) cannot be read from the transcript. An engine exposes the hook through
 * `BenchEngine.setup()` as `stats`; engines without one keep no store the bench can measure and
 * get `n/a` for the store figures, never a made-up number.
 *
 * Contract of `stats(sessionId)`:
 * - It answers what the last completed write left. The harness waits for the host's background
 *   maintenance before asking, so a pass that is still running is never half counted.
 * - `storeBytes` covers every file of the engine's state while it is open (database, write-ahead
 *   log, side files) over the whole store; every other figure is for `sessionId` only.
 * - Counts are over the session's whole life, not since the previous call.
 * - It throws `EngineStatsUnavailableError` when the engine cannot report (its store could not be
 *   opened, a read failed); the harness prints `n/a` with that reason and goes on.
 */
import { ClewError } from "@clew/core";

export interface BenchEngineStats {
  /** Bytes of the engine's state on disk while open, every file included. */
  storeBytes: number;
  /** Messages of the session in the engine's store. */
  messagesStored: number;
  compaction: {
    /** Passes that changed what the model is sent. */
    passes: number;
    /** Tokens those passes removed, in total (by the engine's own counter). */
    tokensRemovedTotal: number;
  };
  summaries: {
    count: number;
    /** Tokens of the summaries the engine would send now, and of the messages they stand for. */
    summaryTokens: number;
    sourceTokens: number;
    /** Summaries on the longest chain down to the raw messages (1 = summaries of raw messages only). */
    deepestChain: number;
    /** Bytes of the summary texts, when the engine knows them. */
    summaryBytes?: number;
  };
}

/** The stats hook of one engine; see the file comment for its contract. */
export type BenchEngineStatsHook = (sessionId: string) => Promise<BenchEngineStats>;

/** The engine could not report its stats; `reason` is printed as the n/a reason. */
export class EngineStatsUnavailableError extends ClewError {
  readonly engine: string;
  readonly reason: string;

  constructor(engine: string, reason: string) {
    super(`${engine} cannot report its store: ${reason}`, {
      code: "bench_engine_stats_unavailable",
      category: "third_party",
    });
    this.engine = engine;
    this.reason = reason;
  }
}
