/**
 * Turns as a host drives an engine, minus the host: `assemble` with the stored history, then the
 * turn's messages through `afterTurn`, else `ingestBatch`, else `ingest` per message (the host's
 * finalize order), then `maintain` when the engine has it. `assemble` and the finalize call are
 * timed; `maintain` is timed apart, since a host may run it after the reply.
 *
 * Measured turns alternate between `assemble` with the turn's prompt and without one, one call per
 * turn, so each is the first call after the turn's ingest and neither finds a view the other has
 * just brought up to date: the figures separate the view's assembly (O(change)) from query-aware
 * retrieval (an engine adding earlier messages that match `params.prompt`). Warm-up turns make
 * both calls, untimed, so both paths are compiled before anything is measured.
 */
import { type AgentMessage, type ContextEngine, readableTextParts } from "@clew/core";
import { type LatencySummary, summarizeLatencies } from "../../metrics/percentiles.js";
import { type IngestPath, ingestEach } from "./bulk-ingest.js";

export interface TurnSession {
  sessionId: string;
  sessionKey: string;
  sessionFile: string;
  tokenBudget: number;
}

export interface TurnOptions {
  /** Unmeasured turns first (JIT, first view build). */
  warmup: number;
  /** Measured turns at most per assemble mode (with and without the prompt): twice as many in all. */
  turns: number;
  /** Stop early once the measured turns took this long... */
  budgetMs: number;
  /** ...and each mode has at least this many. */
  minTurns: number;
}

export interface TurnIngestMetrics {
  path: IngestPath;
  messages: number;
  /** What the engine reported storing; `afterTurn` reports nothing, so undefined there. */
  stored?: number;
  totalMs: number;
  /** `totalMs / messages`: the figure issue #8 sets a target for. */
  msPerMessage: number;
  /** Per-turn ms per message, for the spread. */
  perTurnMsPerMessage: LatencySummary;
}

/** `assemble` in one mode, over the measured turns that used it. */
export interface AssembleMetrics {
  latency: LatencySummary;
  /** Every call returned the very array it was given (legacy's pass-through). */
  passThrough: boolean;
  /** Messages the last call returned, and its estimate. */
  lastAssembledMessages: number;
  lastEstimatedTokens: number;
}

export interface TurnMetrics {
  /** Messages in the history when the first measured turn started. */
  historyMessages: number;
  /** Turns run, warm-up included: `turns[0..turnsRun)` are in the engine now. */
  turnsRun: number;
  /** `assemble` with the turn's prompt (the host's call). */
  assemble: LatencySummary;
  /** Every `assemble` with the prompt returned the very array it was given. */
  passThrough: boolean;
  /** Messages `assemble` with the prompt returned in the last measured turn, and its estimate. */
  lastAssembledMessages: number;
  lastEstimatedTokens: number;
  /** `assemble` without `prompt`: the view alone, no query-aware retrieval. */
  withoutPrompt: AssembleMetrics;
  /** Over every measured turn, both modes. */
  ingest: TurnIngestMetrics;
  /** `maintain` after each measured turn; absent for engines without it. */
  maintain?: LatencySummary;
}

type AssembleMode = "prompted" | "unprompted";

/**
 * Runs `warmup` then measured turns from `turns`, growing `history` (the caller's array is not
 * changed). Throws when fewer than two turns (one per mode) are left after the warm-up, or what
 * the engine throws.
 */
export async function measureTurns(
  engine: ContextEngine,
  session: TurnSession,
  history: readonly AgentMessage[],
  turns: readonly (readonly AgentMessage[])[],
  options: TurnOptions,
): Promise<TurnMetrics> {
  const measured = turns.slice(options.warmup, options.warmup + 2 * options.turns);
  if (measured.length < 2) {
    throw new Error(
      `${measured.length} turns left to measure after ${options.warmup} warm-up turns (${turns.length} in all); ` +
        "at least 2 are needed, one with the prompt and one without",
    );
  }
  let stored = [...history];
  for (const turn of turns.slice(0, options.warmup))
    stored = (await runTurn(engine, session, stored, turn, ["prompted", "unprompted"])).history;
  const historyMessages = stored.length;
  const samples: TurnSample[] = [];
  const started = performance.now();
  for (const [index, turn] of measured.entries()) {
    const mode: AssembleMode = index % 2 === 0 ? "prompted" : "unprompted";
    const { history: next, sample } = await runTurn(engine, session, stored, turn, [mode]);
    // Only the figures are kept: a host does not hold every turn's copy of the history, and
    // holding them (50,000 references each at 50k) made every young-generation collection during
    // the measured calls promote them, several milliseconds each.
    samples.push(sample);
    stored = next;
    const fewest = Math.floor(samples.length / 2);
    if (performance.now() - started >= options.budgetMs && fewest >= options.minTurns) break;
  }
  return summarize(historyMessages, options.warmup + samples.length, samples);
}

interface AssembleSample {
  mode: AssembleMode;
  ms: number;
  passThrough: boolean;
  assembledMessages: number;
  estimatedTokens: number;
}

interface TurnSample {
  /** The timed call of a measured turn (the first, in warm-up turns). */
  assembled: AssembleSample;
  ingestPath: IngestPath;
  ingestMs: number;
  ingestMessages: number;
  stored?: number;
  maintainMs?: number;
}

/** One turn: `assemble` once per mode in `modes`, in order, then finalize and `maintain`. */
async function runTurn(
  engine: ContextEngine,
  session: TurnSession,
  history: AgentMessage[],
  turn: readonly AgentMessage[],
  modes: readonly [AssembleMode, ...AssembleMode[]],
): Promise<{ history: AgentMessage[]; sample: TurnSample }> {
  const identity = { sessionId: session.sessionId, sessionKey: session.sessionKey };
  const prompt = turn[0] === undefined ? "" : readableTextParts(turn[0]).join("\n");
  const assembled: AssembleSample[] = [];
  for (const mode of modes) assembled.push(await assembleOnce(engine, session, history, mode, prompt));
  const snapshot = [...history, ...turn];
  const finalized = await finalizeTurn(engine, session, snapshot, history.length);
  const sample: TurnSample = {
    assembled: assembled[0] as AssembleSample,
    ingestMessages: turn.length,
    ...finalized,
  };
  if (engine.maintain !== undefined) {
    const maintainStart = performance.now();
    await engine.maintain({ ...identity, sessionFile: session.sessionFile });
    sample.maintainMs = performance.now() - maintainStart;
  }
  return { history: snapshot, sample };
}

async function assembleOnce(
  engine: ContextEngine,
  session: TurnSession,
  history: readonly AgentMessage[],
  mode: AssembleMode,
  prompt: string,
): Promise<AssembleSample> {
  // A host hands each call a fresh array from its pipeline; building it is not the engine's cost.
  const input = [...history];
  const started = performance.now();
  const result = await engine.assemble({
    sessionId: session.sessionId,
    sessionKey: session.sessionKey,
    messages: input,
    tokenBudget: session.tokenBudget,
    ...(mode === "prompted" ? { prompt } : {}),
    model: "bench-model",
  });
  return {
    mode,
    ms: performance.now() - started,
    passThrough: result.messages === input,
    assembledMessages: result.messages.length,
    estimatedTokens: result.estimatedTokens,
  };
}

/** The host's finalize: afterTurn, else ingestBatch of the turn, else ingest per message; timed. */
async function finalizeTurn(
  engine: ContextEngine,
  session: TurnSession,
  snapshot: AgentMessage[],
  prePromptMessageCount: number,
): Promise<{ ingestPath: IngestPath; ingestMs: number; stored?: number }> {
  const identity = { sessionId: session.sessionId, sessionKey: session.sessionKey };
  const newMessages = snapshot.slice(prePromptMessageCount);
  const started = performance.now();
  if (engine.afterTurn !== undefined) {
    await engine.afterTurn({
      ...identity,
      sessionFile: session.sessionFile,
      messages: snapshot,
      prePromptMessageCount,
      tokenBudget: session.tokenBudget,
    });
    return { ingestPath: "afterTurn", ingestMs: performance.now() - started };
  }
  if (engine.ingestBatch !== undefined) {
    const { ingestedCount } = await engine.ingestBatch({ ...identity, messages: newMessages });
    return { ingestPath: "ingestBatch", ingestMs: performance.now() - started, stored: ingestedCount };
  }
  const stored = await ingestEach(engine, identity, newMessages);
  return { ingestPath: "ingest", ingestMs: performance.now() - started, stored };
}

function summarize(historyMessages: number, turnsRun: number, samples: readonly TurnSample[]): TurnMetrics {
  const last = samples.at(-1) as TurnSample;
  const messages = samples.reduce((sum, sample) => sum + sample.ingestMessages, 0);
  const totalMs = samples.reduce((sum, sample) => sum + sample.ingestMs, 0);
  const ingest: TurnIngestMetrics = {
    path: last.ingestPath,
    messages,
    totalMs,
    msPerMessage: totalMs / messages,
    perTurnMsPerMessage: summarizeLatencies(
      samples.map((sample) => sample.ingestMs / Math.max(1, sample.ingestMessages)),
    ),
  };
  if (samples.every((sample) => sample.stored !== undefined)) {
    ingest.stored = samples.reduce((sum, sample) => sum + (sample.stored ?? 0), 0);
  }
  const maintained = samples.flatMap((sample) =>
    sample.maintainMs === undefined ? [] : [sample.maintainMs],
  );
  const prompted = assembleMetrics(samples, "prompted");
  return {
    historyMessages,
    turnsRun,
    assemble: prompted.latency,
    passThrough: prompted.passThrough,
    lastAssembledMessages: prompted.lastAssembledMessages,
    lastEstimatedTokens: prompted.lastEstimatedTokens,
    withoutPrompt: assembleMetrics(samples, "unprompted"),
    ingest,
    ...(maintained.length === 0 ? {} : { maintain: summarizeLatencies(maintained) }),
  };
}

/** The samples of one mode; measured turns alternate, so each mode has at least one. */
function assembleMetrics(samples: readonly TurnSample[], mode: AssembleMode): AssembleMetrics {
  const calls = samples.map((sample) => sample.assembled).filter((call) => call.mode === mode);
  const last = calls.at(-1) as AssembleSample;
  return {
    latency: summarizeLatencies(calls.map((call) => call.ms)),
    passThrough: calls.every((call) => call.passThrough),
    lastAssembledMessages: last.assembledMessages,
    lastEstimatedTokens: last.estimatedTokens,
  };
}
