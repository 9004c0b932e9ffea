/**
 * One engine-speed cell: one engine on a synthetic history of N messages, driven only through the
 * context-engine contract. Phases, in order, on one engine instance:
 * 1. bulk ingest of the whole history (bootstrap of its transcript, else ingestBatch, else ingest);
 *    the engine's state folder is measured right after, against the transcript's bytes;
 * 2. one forced compaction of that backlog with the 128k budget (stub summarizer, time taken out),
 *    then `maintain` as a host runs it after a compaction (not timed);
 * 3. turns: assemble with a 128k budget, then the turn's messages through the host's finalize
 *    path, then `maintain`.
 */
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import {
  type AgentMessage,
  type ContextEngine,
  createRuntimeCompaction,
  JsonlTranscriptStore,
  type SessionRuntimeCompactor,
  type TokenCounter,
  TranscriptHostSession,
} from "@clew/core";
import type { CellSpec } from "../../cell.js";
import { loadBenchTokenCounter } from "../../token-counters.js";
import { loadWorkload } from "../../workloads/workload.js";
import { createStubSummarizer, type StubSummarizer } from "../pipeline/stub-summarizer.js";
import type { CellContext } from "../suite.js";
import { type BulkIngestMetrics, measureBulkIngest } from "./bulk-ingest.js";
import { type EngineCompactionMetrics, measureEngineCompaction } from "./engine-compaction.js";
import { messagesOf, splitReplay, type WrittenTranscript, writeTranscript } from "./engine-history.js";
import { measureTurns, type TurnMetrics } from "./engine-turns.js";
import { createEngineUnderTest } from "./engine-under-test.js";
import { measureStoreSize, type StoreSize } from "./store-size.js";

/** The budget of issue #8's assemble target, used for every assemble and the compaction. */
export const ENGINE_SPEED_TOKEN_BUDGET = 128_000;

/** Replay beyond the history, enough for any turn count the bench asks for; read lazily. */
const REPLAY_SLACK_MESSAGES = 20_000;

const SESSION_ID = "bench-engine";
const SESSION_KEY = `agent:main:${SESSION_ID}`;

export interface EngineSpeedMetrics {
  /** `info.id` of the engine that ran. */
  engineId: string;
  ownsCompaction: boolean;
  tokenBudget: number;
  /** Messages in the transcript the engine ingested in bulk. */
  historyMessages: number;
  /** The transcript's file size: the raw JSONL of the same messages. */
  rawJsonlBytes: number;
  bulkIngest: BulkIngestMetrics;
  /** The engine's state folder right after bulk ingest (0 bytes: it keeps nothing on disk). */
  store: StoreSize & {
    /** `bytes / rawJsonlBytes`. */
    overRawJsonl: number;
    /** The same folder after compaction and the turns. */
    atEnd: StoreSize;
  };
  compaction: EngineCompactionMetrics;
  turns: TurnMetrics;
}

/** Throws for a workload that is not synthetic, an unknown engine, or a failing phase. */
export async function runEngineSpeedCell(cell: CellSpec, context: CellContext): Promise<EngineSpeedMetrics> {
  const { workload } = cell;
  if (workload.kind !== "synthetic") {
    throw new Error(`the engine suite replays synthetic sessions only, not ${workload.kind} workloads`);
  }
  const counter = await loadBenchTokenCounter(cell.counter);
  const summarizer = createStubSummarizer({ busyMs: 0 });
  const stateDir = join(context.home, "engine-state");
  await mkdir(stateDir, { recursive: true });
  const engine = await createEngineUnderTest({
    engine: cell.engine,
    counter,
    summarizer,
    stateDir,
    workspaceDir: context.home,
  });
  try {
    const replay = await prepareReplay(cell, workload.messages, context.home);
    return await measurePhases(engine, { cell, context, counter, summarizer, stateDir, replay });
  } finally {
    await engine.dispose?.();
  }
}

interface PreparedReplay {
  transcriptStore: JsonlTranscriptStore;
  transcript: WrittenTranscript;
  history: AgentMessage[];
  turns: AgentMessage[][];
}

/** The history written as the session's transcript, and the turns after it (not timed). */
async function prepareReplay(cell: CellSpec, messages: number, home: string): Promise<PreparedReplay> {
  const { settings } = cell;
  const loaded = await loadWorkload(
    { kind: "synthetic", messages: messages + REPLAY_SLACK_MESSAGES },
    settings.piSessionsDir,
  );
  const replay = splitReplay(loaded.entries(), {
    historyMessages: messages,
    turns: settings.warmupTurns + settings.warmTurns,
  });
  const transcriptStore = new JsonlTranscriptStore({ home });
  const transcript = await writeTranscript(transcriptStore, SESSION_ID, replay.history);
  return { transcriptStore, transcript, history: messagesOf(replay.history), turns: replay.turns };
}

interface PhaseInputs {
  cell: CellSpec;
  context: CellContext;
  counter: TokenCounter;
  summarizer: StubSummarizer;
  stateDir: string;
  replay: PreparedReplay;
}

async function measurePhases(engine: ContextEngine, inputs: PhaseInputs): Promise<EngineSpeedMetrics> {
  const { settings } = inputs.cell;
  const { context, replay, stateDir } = inputs;
  const session = { sessionId: SESSION_ID, sessionKey: SESSION_KEY, sessionFile: replay.transcript.path };

  context.log(`bulk ingest of ${replay.history.length} messages`);
  const bulkIngest = await measureBulkIngest(engine, { ...session, messages: replay.history });
  const store = await measureStoreSize(stateDir);

  context.log("forced compaction of the backlog");
  const compaction = await compactBacklog(engine, {
    store: replay.transcriptStore,
    sessionFile: replay.transcript.path,
    runtime: createRuntimeCompaction({
      counter: inputs.counter,
      modelSummarizer: inputs.summarizer,
      keepRecentTokens: settings.keepRecentTokens,
    }),
    summarizer: inputs.summarizer,
    workspaceDir: context.home,
  });
  if (engine.maintain !== undefined) await engine.maintain(session);

  context.log(`turns (up to ${settings.warmTurns} after ${settings.warmupTurns} warm-up)`);
  const turns = await measureTurns(
    engine,
    { ...session, tokenBudget: ENGINE_SPEED_TOKEN_BUDGET },
    replay.history,
    replay.turns,
    {
      warmup: settings.warmupTurns,
      turns: settings.warmTurns,
      budgetMs: settings.phaseBudgetMs,
      minTurns: settings.minTurns,
    },
  );
  return {
    engineId: engine.info.id,
    ownsCompaction: engine.info.ownsCompaction === true,
    tokenBudget: ENGINE_SPEED_TOKEN_BUDGET,
    historyMessages: replay.history.length,
    rawJsonlBytes: replay.transcript.bytes,
    bulkIngest,
    store: {
      ...store,
      overRawJsonl: store.bytes / replay.transcript.bytes,
      atEnd: await measureStoreSize(stateDir),
    },
    compaction,
    turns,
  };
}

interface BacklogCompaction {
  store: JsonlTranscriptStore;
  sessionFile: string;
  runtime: SessionRuntimeCompactor;
  summarizer: StubSummarizer;
  workspaceDir: string;
}

/**
 * The forced compaction, with the runtime's compaction bound to the session's transcript. For an
 * engine that does not own compaction the session is opened first, as a host has it open already;
 * an owning engine that delegates anyway (failing open) pays for the opening.
 */
async function compactBacklog(
  engine: ContextEngine,
  options: BacklogCompaction,
): Promise<EngineCompactionMetrics> {
  const opened: { session?: TranscriptHostSession } = {};
  const openSession = async (): Promise<TranscriptHostSession> => {
    opened.session ??= await TranscriptHostSession.openOrCreate(options.store, {
      agentId: "main",
      sessionId: SESSION_ID,
      sessionKey: SESSION_KEY,
    });
    return opened.session;
  };
  if (engine.info.ownsCompaction !== true) await openSession();
  try {
    return await measureEngineCompaction(
      engine,
      {
        sessionId: SESSION_ID,
        sessionKey: SESSION_KEY,
        sessionFile: options.sessionFile,
        tokenBudget: ENGINE_SPEED_TOKEN_BUDGET,
        workspaceDir: options.workspaceDir,
        runtime: options.runtime,
        session: openSession,
      },
      options.summarizer,
    );
  } finally {
    await opened.session?.close();
  }
}
