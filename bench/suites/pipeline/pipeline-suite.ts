/**
 * The pipeline suite: ingest rate, per-turn overhead (warm and cold), compaction CPU without the
 * summarizer, and bytes on disk, for one engine on one workload.
 */
import { JsonlTranscriptStore } from "@clew/core";
import type { CellSpec } from "../../cell.js";
import { loadBenchTokenCounter } from "../../token-counters.js";
import { loadWorkload } from "../../workloads/workload.js";
import type { BenchSuite, CellContext } from "../suite.js";
import { createBenchHost, InstantModel } from "./bench-host.js";
import { type CompactionMetrics, measureCompaction } from "./compaction.js";
import { type IngestMetrics, measureIngest } from "./ingest.js";
import { createStubSummarizer } from "./stub-summarizer.js";
import { closeSession, measureColdTurns, measureWarmTurns, type TurnPhaseMetrics } from "./turns.js";

export interface PipelineMetrics {
  messages: number;
  ingest: IngestMetrics;
  warmTurn: TurnPhaseMetrics;
  coldTurn: TurnPhaseMetrics;
  compaction: CompactionMetrics;
  /** Messages in the session when compaction ran (the workload plus the measured turns). */
  messagesAtCompaction: number;
}

const SESSION_ID = "bench-session";

/** Runs the phases in order: ingest, cold turns, warm turns, then one compaction. */
export async function runPipelineCell(cell: CellSpec, context: CellContext): Promise<PipelineMetrics> {
  const { settings } = cell;
  const workload = await loadWorkload(cell.workload, settings.piSessionsDir);
  const counter = await loadBenchTokenCounter(cell.counter);
  const store = new JsonlTranscriptStore({ home: context.home });
  context.log(`ingest ${workload.messages} messages`);
  const ingest = await measureIngest(store, workload, {
    sessionId: SESSION_ID,
    batchSize: settings.ingestBatchSize,
  });
  const summarizer = createStubSummarizer({ busyMs: settings.summarizerBusyMs });
  const host = createBenchHost({
    engine: cell.engine,
    counter,
    summarizer,
    keepRecentTokens: settings.keepRecentTokens,
  });
  const model = new InstantModel();
  const phase = {
    budgetMs: settings.phaseBudgetMs,
    minTurns: settings.minTurns,
    engine: cell.engine,
  };
  try {
    context.log(`cold turns (up to ${settings.coldTurns})`);
    const coldTurn = await measureColdTurns(host, store, SESSION_ID, model, {
      ...phase,
      turns: settings.coldTurns,
    });
    const { TranscriptHostSession } = await import("@clew/core");
    let session = await TranscriptHostSession.openOrCreate(store, { agentId: "main", sessionId: SESSION_ID });
    try {
      context.log(`warm turns (up to ${settings.warmTurns})`);
      const warm = await measureWarmTurns(host, session, model, {
        ...phase,
        turns: settings.warmTurns,
        warmup: settings.warmupTurns,
      });
      session = warm.session as typeof session;
      const messagesAtCompaction = (await session.messages()).length;
      context.log("compaction");
      const compaction = await measureCompaction(host, session, summarizer);
      return {
        messages: workload.messages,
        ingest,
        warmTurn: warm.metrics,
        coldTurn,
        compaction,
        messagesAtCompaction,
      };
    } finally {
      await closeSession(session);
    }
  } finally {
    await host.dispose();
  }
}

export const pipelineSuite: BenchSuite<PipelineMetrics> = {
  name: "pipeline",
  description: "ingest, per-turn overhead, compaction CPU and disk use of the engine pipeline",
  run: runPipelineCell,
  rows: [
    { label: "messages", format: "count", value: (metrics) => metrics.messages, slope: true },
    { label: "ingest (messages/s)", format: "rate", value: (metrics) => metrics.ingest.messagesPerSecond, slope: true },
    { label: "warm turn p50 (ms)", format: "ms", value: (metrics) => metrics.warmTurn.p50Ms, slope: true },
    { label: "warm turn p95 (ms)", format: "ms", value: (metrics) => metrics.warmTurn.p95Ms, slope: true },
    { label: "warm turns measured", format: "count", value: (metrics) => metrics.warmTurn.samples },
    { label: "cold turn p50 (ms)", format: "ms", value: (metrics) => metrics.coldTurn.p50Ms, slope: true },
    { label: "cold turn p95 (ms)", format: "ms", value: (metrics) => metrics.coldTurn.p95Ms, slope: true },
    { label: "cold turns measured", format: "count", value: (metrics) => metrics.coldTurn.samples },
    {
      label: "compaction CPU excl. summarizer (ms)",
      format: "ms",
      value: (metrics) => metrics.compaction.cpuMsExcludingSummarizer,
      slope: true,
    },
    { label: "  summarizer stub CPU (ms)", format: "ms", value: (metrics) => metrics.compaction.summarizerCpuMs },
    { label: "  compaction wall (ms)", format: "ms", value: (metrics) => metrics.compaction.wallMs },
    { label: "bytes on disk / message", format: "bytes", value: (metrics) => metrics.ingest.bytesPerMessage, slope: true },
  ],
};
