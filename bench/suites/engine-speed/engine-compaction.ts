/**
 * Compaction overhead: one `compact({ force: true })` over the whole ingested backlog, with a
 * budget far below it, so everything outside the engine's fresh tail must be summarized. The
 * summarizer is a stub that answers at once and times itself; its time is taken out.
 *
 * The call runs inside `runWithRuntimeCompactor`, as every host engine call does, so an engine
 * that delegates (`legacy`, or one failing open) reaches the runtime's summary compaction over
 * the session's transcript, exactly what `/compact` runs through a host.
 */
import {
  type CompactResult,
  type ContextEngine,
  type RuntimeCompactor,
  runWithRuntimeCompactor,
  type SessionRuntimeCompactor,
  type TranscriptHostSession,
} from "@clew/core";
import { cpuMsSince, wallMsSince } from "../../metrics/cpu-time.js";
import { compactionFigures } from "../pipeline/compaction.js";
import type { StubSummarizer } from "../pipeline/stub-summarizer.js";

export interface EngineCompactionMetrics {
  ok: boolean;
  compacted: boolean;
  /** The engine's reason, when it gave one (why nothing was compacted, or the target missed). */
  reason?: string;
  tokensBefore?: number;
  tokensAfter?: number;
  /** Whether the engine delegated to the runtime's summary compaction. */
  delegated: boolean;
  /** Process CPU (all threads) of the whole call, summarizer included. */
  cpuMs: number;
  wallMs: number;
  summarizerCalls: number;
  summarizerCpuMs: number;
  /** `cpuMs − summarizerCpuMs`. Includes the engine's own summarizer when it did not call the stub. */
  cpuMsExcludingSummarizer: number;
}

export interface CompactionRequest {
  sessionId: string;
  sessionKey: string;
  sessionFile: string;
  tokenBudget: number;
  workspaceDir: string;
  /** The runtime's compaction and the session it works on, for engines that delegate. */
  runtime: SessionRuntimeCompactor;
  /** Opens the session lazily: only an engine that delegates needs it. */
  session: () => Promise<TranscriptHostSession>;
}

/** Runs and times one forced compaction. Throws what the engine's `compact` throws. */
export async function measureEngineCompaction(
  engine: ContextEngine,
  request: CompactionRequest,
  summarizer: StubSummarizer,
): Promise<EngineCompactionMetrics> {
  let delegated = false;
  const compactor: RuntimeCompactor = async (runtimeRequest) => {
    delegated = true;
    return request.runtime(runtimeRequest, await request.session());
  };
  summarizer.reset();
  const wallStart = performance.now();
  const cpuStart = process.cpuUsage();
  const result: CompactResult = await runWithRuntimeCompactor(compactor, () =>
    engine.compact({
      sessionId: request.sessionId,
      sessionKey: request.sessionKey,
      agentId: "main",
      sessionFile: request.sessionFile,
      tokenBudget: request.tokenBudget,
      force: true,
      forceReason: "manual",
      compactionTarget: "budget",
      runtimeContext: { workspaceDir: request.workspaceDir, tokenBudget: request.tokenBudget },
    }),
  );
  const cpuMs = cpuMsSince(cpuStart);
  const wallMs = wallMsSince(wallStart);
  return { ok: result.ok, delegated, ...compactionFigures(result, { cpuMs, wallMs }, summarizer) };
}
