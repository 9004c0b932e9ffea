/**
 * Turns as a host drives an engine, minus the host: `assemble` with the stored history and the
 * turn's prompt, then the turn's messages through `afterTurn`, else `ingestBatch`, else `ingest`
 * per message (the host's finalize order), then `maintain` when the engine has it. `assemble` and
 * the finalize call are timed; `maintain` is timed apart, since a host may run it after the reply.
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
  /** Measured turns at most. */
  turns: number;
  /** Stop early once the measured turns took this long... */
  budgetMs: number;
  /** ...and there are at least this many. */
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

export interface TurnMetrics {
  /** Messages in the history when the first measured turn started. */
  historyMessages: number;
  assemble: LatencySummary;
  /** Every measured `assemble` returned the very array it was given (legacy's pass-through). */
  passThrough: boolean;
  /** Messages `assemble` returned in the last measured turn, and its estimate. */
  lastAssembledMessages: number;
  lastEstimatedTokens: number;
  ingest: TurnIngestMetrics;
  /** `maintain` after each measured turn; absent for engines without it. */
  maintain?: LatencySummary;
}

/**
 * Runs `warmup` then measured turns from `turns`, growing `history` (the caller's array is not
 * changed). Throws when there are no turns to measure after the warm-up, or what the engine throws.
 */
export async function measureTurns(
  engine: ContextEngine,
  session: TurnSession,
  history: readonly AgentMessage[],
  turns: readonly (readonly AgentMessage[])[],
  options: TurnOptions,
): Promise<TurnMetrics> {
  const measured = turns.slice(options.warmup, options.warmup + options.turns);
  if (measured.length === 0) {
    throw new Error(
      `no turns left to measure after ${options.warmup} warm-up turns (${turns.length} in all)`,
    );
  }
  let stored = [...history];
  for (const turn of turns.slice(0, options.warmup))
    stored = (await runTurn(engine, session, stored, turn)).history;
  const historyMessages = stored.length;
  const samples: TurnSample[] = [];
  const started = performance.now();
  for (const turn of measured) {
    const sample = await runTurn(engine, session, stored, turn);
    samples.push(sample);
    stored = sample.history;
    if (performance.now() - started >= options.budgetMs && samples.length >= options.minTurns) break;
  }
  return summarize(historyMessages, samples);
}

interface TurnSample {
  history: AgentMessage[];
  assembleMs: number;
  passThrough: boolean;
  assembledMessages: number;
  estimatedTokens: number;
  ingestPath: IngestPath;
  ingestMs: number;
  ingestMessages: number;
  stored?: number;
  maintainMs?: number;
}

async function runTurn(
  engine: ContextEngine,
  session: TurnSession,
  history: AgentMessage[],
  turn: readonly AgentMessage[],
): Promise<TurnSample> {
  const identity = { sessionId: session.sessionId, sessionKey: session.sessionKey };
  const prompt = turn[0] === undefined ? "" : readableTextParts(turn[0]).join("\n");
  // A host hands each call a fresh array from its pipeline; building it is not the engine's cost.
  const assembleInput = [...history];
  const assembleStart = performance.now();
  const assembled = await engine.assemble({
    ...identity,
    messages: assembleInput,
    tokenBudget: session.tokenBudget,
    prompt,
    model: "bench-model",
  });
  const assembleMs = performance.now() - assembleStart;
  const snapshot = [...history, ...turn];
  const finalized = await finalizeTurn(engine, session, snapshot, history.length);
  const sample: TurnSample = {
    history: snapshot,
    assembleMs,
    passThrough: assembled.messages === assembleInput,
    assembledMessages: assembled.messages.length,
    estimatedTokens: assembled.estimatedTokens,
    ingestMessages: turn.length,
    ...finalized,
  };
  if (engine.maintain !== undefined) {
    const maintainStart = performance.now();
    await engine.maintain({ ...identity, sessionFile: session.sessionFile });
    sample.maintainMs = performance.now() - maintainStart;
  }
  return sample;
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

function summarize(historyMessages: number, samples: readonly TurnSample[]): TurnMetrics {
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
  return {
    historyMessages,
    assemble: summarizeLatencies(samples.map((sample) => sample.assembleMs)),
    passThrough: samples.every((sample) => sample.passThrough),
    lastAssembledMessages: last.assembledMessages,
    lastEstimatedTokens: last.estimatedTokens,
    ingest,
    ...(maintained.length === 0 ? {} : { maintain: summarizeLatencies(maintained) }),
  };
}
