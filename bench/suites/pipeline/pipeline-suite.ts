/**
 * The pipeline suite: ingest rate, per-turn overhead (warm and cold), compaction CPU without the
 * summarizer, and bytes on disk, for one engine on one workload.
 */
import {
  type ContextEngineHost,
  type HostSession,
  JsonlTranscriptStore,
  TranscriptHostSession,
} from "@clew/core";
import type { CellSpec } from "../../cell.js";
import { loadBenchTokenCounter } from "../../token-counters.js";
import { loadWorkload } from "../../workloads/workload.js";
import type { BenchSuite, CellContext } from "../suite.js";
import { createBenchHost, InstantModel } from "./bench-host.js";
import { type CompactionMetrics, measureCompaction } from "./compaction.js";
import { type IngestMetrics, measureIngest } from "./ingest.js";
import { createStubSummarizer, type StubSummarizer } from "./stub-summarizer.js";
import { closeSession, measureColdTurns, measureWarmTurns, type TurnPhaseMetrics } from "./turns.js";

export interface PipelineMetrics {
  messages: number;
  ingest: IngestMetrics;
  warmTurn: TurnPhaseMetrics;
  coldTurn: TurnPhaseMetrics;
  compaction: CompactionMetrics;
  /** Messages in the context when compaction ran (after the measured turns; for pi before-compaction, what its last compaction kept). */
  contextMessagesAtCompaction: number;
}

const SESSION_ID = "bench-session";

/** Runs the phases in order: ingest, cold turns, warm turns, then one compaction. */
export async function runPipelineCell(cell: CellSpec, context: CellContext): Promise<PipelineMetrics> {
  const { settings } = cell;
  const counter = await loadBenchTokenCounter(cell.counter);
  const summarizer = createStubSummarizer({ busyMs: settings.summarizerBusyMs });
  // Built first so an unknown engine fails the cell before any work is done.
  const host = createBenchHost({
    engine: cell.engine,
    counter,
    summarizer,
    keepRecentTokens: settings.keepRecentTokens,
  });
  try {
    const workload = await loadWorkload(cell.workload, settings.piSessionsDir);
    const store = new JsonlTranscriptStore({ home: context.home });
    context.log(`ingest ${workload.messages} messages`);
    const ingest = await measureIngest(store, workload, {
      sessionId: SESSION_ID,
      batchSize: settings.ingestBatchSize,
    });
    const run: PhaseRun = { cell, context, host, store, model: new InstantModel(), summarizer };
    context.log(`cold turns (up to ${settings.coldTurns})`);
    const coldTurn = await measureColdTurns(host, store, SESSION_ID, run.model, {
      ...phaseOptions(cell),
      turns: settings.coldTurns,
    });
    return { messages: workload.messages, ingest, coldTurn, ...(await runOpenSessionPhases(run)) };
  } finally {
    await host.dispose();
  }
}

interface PhaseRun {
  cell: CellSpec;
  context: CellContext;
  host: ContextEngineHost;
  store: JsonlTranscriptStore;
  model: InstantModel;
  summarizer: StubSummarizer;
}

/** Warm turns and compaction share one open session, as in a running gateway. */
async function runOpenSessionPhases(
  run: PhaseRun,
): Promise<Pick<PipelineMetrics, "warmTurn" | "compaction" | "contextMessagesAtCompaction">> {
  const { settings } = run.cell;
  let session: HostSession = await TranscriptHostSession.openOrCreate(run.store, {
    agentId: "main",
    sessionId: SESSION_ID,
  });
  try {
    run.context.log(`warm turns (up to ${settings.warmTurns})`);
    const warm = await measureWarmTurns(run.host, session, run.model, {
      ...phaseOptions(run.cell),
      turns: settings.warmTurns,
      warmup: settings.warmupTurns,
    });
    session = warm.session;
    const contextMessagesAtCompaction = (await session.messages()).length;
    run.context.log("compaction");
    const compaction = await measureCompaction(run.host, session, run.summarizer);
    return { warmTurn: warm.metrics, compaction, contextMessagesAtCompaction };
  } finally {
    await closeSession(session);
  }
}

function phaseOptions(cell: CellSpec) {
  return { budgetMs: cell.settings.phaseBudgetMs, minTurns: cell.settings.minTurns, engine: cell.engine };
}

export const pipelineSuite: BenchSuite<PipelineMetrics> = {
  name: "pipeline",
  description: "ingest, per-turn overhead, compaction CPU and disk use of the engine pipeline",
  run: runPipelineCell,
  rows: [
    {
      key: "messages",
      label: "messages",
      format: "count",
      value: (metrics) => metrics.messages,
      slope: true,
    },
    {
      key: "ingestMessagesPerSecond",
      label: "ingest (messages/s)",
      format: "rate",
      value: (metrics) => metrics.ingest.messagesPerSecond,
      slope: true,
    },
    {
      key: "warmTurnP50Ms",
      label: "warm turn p50 (ms)",
      format: "ms",
      value: (metrics) => metrics.warmTurn.p50Ms,
      slope: true,
    },
    {
      key: "warmTurnP95Ms",
      label: "warm turn p95 (ms)",
      format: "ms",
      value: (metrics) => metrics.warmTurn.p95Ms,
      slope: true,
    },
    {
      key: "warmTurnSamples",
      label: "warm turns measured",
      format: "count",
      value: (metrics) => metrics.warmTurn.samples,
    },
    {
      key: "coldTurnP50Ms",
      label: "cold turn p50 (ms)",
      format: "ms",
      value: (metrics) => metrics.coldTurn.p50Ms,
      slope: true,
    },
    {
      key: "coldTurnP95Ms",
      label: "cold turn p95 (ms)",
      format: "ms",
      value: (metrics) => metrics.coldTurn.p95Ms,
      slope: true,
    },
    {
      key: "coldTurnSamples",
      label: "cold turns measured",
      format: "count",
      value: (metrics) => metrics.coldTurn.samples,
    },
    {
      key: "compactionCpuMsExcludingSummarizer",
      label: "compaction CPU excl. summarizer (ms)",
      format: "ms",
      value: (metrics) => metrics.compaction.cpuMsExcludingSummarizer,
      slope: true,
    },
    {
      key: "summarizerCpuMs",
      label: "  summarizer stub CPU (ms)",
      format: "ms",
      value: (metrics) => metrics.compaction.summarizerCpuMs,
    },
    {
      key: "compactionWallMs",
      label: "  compaction wall (ms)",
      format: "ms",
      value: (metrics) => metrics.compaction.wallMs,
    },
    {
      key: "bytesPerMessage",
      label: "bytes on disk / message",
      format: "bytes",
      value: (metrics) => metrics.ingest.bytesPerMessage,
      slope: true,
    },
  ],
};
