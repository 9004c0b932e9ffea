import type { CompactResult, ContextEngineHost, HostSession } from "@clew/core";
import { cpuMsSince, wallMsSince } from "../../metrics/cpu-time.js";
import { BENCH_MODEL } from "./bench-host.js";
import type { StubSummarizer } from "./stub-summarizer.js";

export interface CompactionMetrics {
  compacted: boolean;
  /** Why nothing was compacted, when so. */
  reason?: string;
  tokensBefore?: number;
  tokensAfter?: number;
  wallMs: number;
  /** Process CPU time (all threads) of the whole compaction, summarizer included. */
  cpuMs: number;
  summarizerCalls: number;
  /** CPU time measured inside the stub summarizer. */
  summarizerCpuMs: number;
  /** `cpuMs − summarizerCpuMs`: what Clew itself spent. */
  cpuMsExcludingSummarizer: number;
}

/**
 * One `/compact` through the host and the engine under test (for `legacy`: delegated to the
 * runtime's summary compaction). Throws when the compaction fails (`ok: false`); a compaction
 * that finds nothing to do is reported with its reason.
 */
export async function measureCompaction(
  host: ContextEngineHost,
  session: HostSession,
  summarizer: StubSummarizer,
): Promise<CompactionMetrics> {
  summarizer.reset();
  const wallStart = performance.now();
  const cpuStart = process.cpuUsage();
  const outcome = await host.compactManually(session, { model: BENCH_MODEL });
  const cpuMs = cpuMsSince(cpuStart);
  const wallMs = wallMsSince(wallStart);
  const { result } = outcome;
  if (!result.ok) throw new Error(`compaction failed: ${result.reason ?? "no reason given"}`);
  return compactionFigures(result, { cpuMs, wallMs }, summarizer);
}

/** The figures of one compaction: its time, the stub summarizer's share of it, what it reduced. */
export function compactionFigures(
  result: CompactResult,
  time: { cpuMs: number; wallMs: number },
  summarizer: StubSummarizer,
): CompactionMetrics {
  const metrics: CompactionMetrics = {
    compacted: result.compacted,
    wallMs: time.wallMs,
    cpuMs: time.cpuMs,
    summarizerCalls: summarizer.stats.calls,
    summarizerCpuMs: summarizer.stats.cpuMs,
    cpuMsExcludingSummarizer: Math.max(0, time.cpuMs - summarizer.stats.cpuMs),
  };
  if (result.reason !== undefined) metrics.reason = result.reason;
  if (result.result?.tokensBefore !== undefined) metrics.tokensBefore = result.result.tokensBefore;
  if (result.result?.tokensAfter !== undefined) metrics.tokensAfter = result.result.tokensAfter;
  return metrics;
}
