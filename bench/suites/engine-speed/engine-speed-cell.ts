/**
 * One engine-speed cell: one engine on a synthetic history of N messages, driven only through the
 * context-engine contract. Phases, in order, on one engine instance:
 * 1. bulk ingest of the whole history (bootstrap of its transcript, else ingestBatch, else ingest);
 *    the engine's state folder is measured right after, against the transcript's bytes; then, on a
 *    second engine with a state folder of its own (disposed and removed at once), `ingestBatch` of
 *    the same messages from memory, so both bulk paths are measured on an empty store;
 * 2. one forced compaction of that backlog with the 128k budget (stub summarizer, time taken out),
 *    then `maintain` as a host runs it after a compaction (not timed);
 * 3. turns: assemble with a 128k budget (with the turn's prompt and without one, on alternate
 *    turns), then the turn's messages through the host's finalize path, then `maintain`.
 * Then the engine is disposed, the turns are appended to the transcript as a host stores them, and
 * a new process opens the engine over the state folder for its first assemble (M9 cold start).
 */
import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import {
  type AgentMessage,
  type ContextEngine,
  createRuntimeCompaction,
  JsonlTranscriptStore,
  readableTextParts,
  type SessionRuntimeCompactor,
  type TokenCounter,
  TranscriptHostSession,
} from "@clew/core";
import type { CellSpec } from "../../cell.js";
import { type CellProbes, probeMachine } from "../../metrics/machine-probe.js";
import { measureStoreSize, type StoreSize } from "../../metrics/store-size.js";
import { loadBenchTokenCounter } from "../../token-counters.js";
import { loadWorkload } from "../../workloads/workload.js";
import { createStubSummarizer, type StubSummarizer } from "../pipeline/stub-summarizer.js";
import type { CellContext } from "../suite.js";
import {
  type BatchIngestOutcome,
  type BulkIngestMetrics,
  measureBatchIngest,
  measureBulkIngest,
} from "./bulk-ingest.js";
import { COLD_START_MAX_MESSAGES, type ColdStartOutcome, measureColdStart } from "./cold-start.js";
import { type EngineCompactionMetrics, measureEngineCompaction } from "./engine-compaction.js";
import {
  appendToTranscript,
  messagesOf,
  splitReplay,
  type WrittenTranscript,
  writeTranscript,
} from "./engine-history.js";
import { measureTurns, type TurnMetrics } from "./engine-turns.js";
import { createEngineUnderTest } from "./engine-under-test.js";

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
  /** The host path: bootstrap, else ingestBatch, else ingest. */
  bulkIngest: BulkIngestMetrics;
  /** `ingestBatch` from memory into an empty store (the host path's figures when that was ingestBatch). */
  batchIngest: BatchIngestOutcome;
  /** The engine's state folder right after bulk ingest (0 bytes: it keeps nothing on disk). */
  store: StoreSize & {
    /** `bytes / rawJsonlBytes`. */
    overRawJsonl: number;
    /** The same folder after compaction and the turns. */
    atEnd: StoreSize;
  };
  compaction: EngineCompactionMetrics;
  turns: TurnMetrics;
  /** New process → open over the state folder → bootstrap → first assemble (M9). */
  coldStart: ColdStartOutcome;
  /** How fast the machine was at the cell's start and end (see `machine-probe.ts`). */
  machine: CellProbes;
}

/** Throws for a workload that is not synthetic, an unknown engine, or a failing phase. */
export async function runEngineSpeedCell(cell: CellSpec, context: CellContext): Promise<EngineSpeedMetrics> {
  const { workload } = cell;
  if (workload.kind !== "synthetic") {
    throw new Error(`the engine suite replays synthetic sessions only, not ${workload.kind} workloads`);
  }
  const startProbe = probeMachine(context.home);
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
  let replay: PreparedReplay;
  let phases: Omit<EngineSpeedMetrics, "coldStart" | "machine">;
  try {
    replay = await prepareReplay(cell, workload.messages, context.home);
    phases = await measurePhases(engine, { cell, context, counter, summarizer, stateDir, replay });
  } finally {
    await engine.dispose?.();
  }
  const coldStart = await coldStartAfterTurns({ cell, context, replay, stateDir }, phases.turns);
  return { ...phases, coldStart, machine: { start: startProbe, end: probeMachine(context.home) } };
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
    // Measured turns alternate with and without the prompt: `warmTurns` of each.
    turns: settings.warmupTurns + 2 * settings.warmTurns,
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

async function measurePhases(
  engine: ContextEngine,
  inputs: PhaseInputs,
): Promise<Omit<EngineSpeedMetrics, "coldStart" | "machine">> {
  const { settings } = inputs.cell;
  const { context, replay, stateDir } = inputs;
  const session = { sessionId: SESSION_ID, sessionKey: SESSION_KEY, sessionFile: replay.transcript.path };

  context.log(`bulk ingest of ${replay.history.length} messages`);
  const bulkIngest = await measureBulkIngest(engine, { ...session, messages: replay.history });
  const store = await measureStoreSize(stateDir);
  const batchIngest = await measureBatchPath(engine, bulkIngest, inputs);

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
    batchIngest,
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

/**
 * The batch path on an empty store: the host path's figures when they were ingestBatch already,
 * else a second engine in a state folder of its own, removed afterwards.
 */
async function measureBatchPath(
  engine: ContextEngine,
  bulkIngest: BulkIngestMetrics,
  inputs: PhaseInputs,
): Promise<BatchIngestOutcome> {
  if (bulkIngest.path === "ingestBatch") return { measured: true, ...bulkIngest };
  if (engine.ingestBatch === undefined) return { measured: false, reason: "no ingestBatch" };
  inputs.context.log(`ingestBatch of ${inputs.replay.history.length} messages into an empty store`);
  const stateDir = join(inputs.context.home, "engine-state-batch");
  await mkdir(stateDir, { recursive: true });
  try {
    const open = () =>
      createEngineUnderTest({
        engine: inputs.cell.engine,
        counter: inputs.counter,
        summarizer: createStubSummarizer({ busyMs: 0 }),
        stateDir,
        workspaceDir: inputs.context.home,
      });
    return await measureBatchIngest(open, {
      sessionId: SESSION_ID,
      sessionKey: SESSION_KEY,
      messages: inputs.replay.history,
    });
  } finally {
    await rm(stateDir, { recursive: true, force: true });
  }
}

/**
 * M9's cold start over the state the disposed engine left: the turns it saw are appended to the
 * transcript first (a host stores them), and the first turn not run gives the prompt.
 */
async function coldStartAfterTurns(
  inputs: Pick<PhaseInputs, "cell" | "context" | "replay" | "stateDir">,
  turns: TurnMetrics,
): Promise<ColdStartOutcome> {
  const { cell, context, replay } = inputs;
  // The size asked for: the history itself runs on to the next user message.
  if (cell.workload.kind === "synthetic" && cell.workload.messages > COLD_START_MAX_MESSAGES) {
    return { measured: false, reason: `over ${COLD_START_MAX_MESSAGES.toLocaleString("en-US")} messages` };
  }
  const run = replay.turns.slice(0, turns.turnsRun);
  await appendToTranscript(
    replay.transcriptStore,
    { sessionId: SESSION_ID, sessionKey: SESSION_KEY },
    run.flat(),
  );
  const next = replay.turns[turns.turnsRun]?.[0] ?? run.at(-1)?.[0];
  context.log("cold start: open, bootstrap and first assemble in a new process");
  return measureColdStart(
    {
      engine: cell.engine,
      counter: cell.counter,
      stateDir: inputs.stateDir,
      workspaceDir: context.home,
      home: context.home,
      sessionId: SESSION_ID,
      sessionKey: SESSION_KEY,
      prompt: next === undefined ? "" : readableTextParts(next).join("\n"),
      tokenBudget: ENGINE_SPEED_TOKEN_BUDGET,
    },
    context.home,
  );
}
