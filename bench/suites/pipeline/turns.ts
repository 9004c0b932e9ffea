/**
 * Per-turn overhead: a turn through the host with a model that answers instantly, so what is
 * timed is Clew's own work (history pipeline, assemble, overflow check, append, flush, finalize).
 * The time spent inside the model stub is taken out.
 */
import {
  type ContextEngineHost,
  type HostSession,
  type JsonlTranscriptStore,
  TranscriptHostSession,
} from "@clew/core";
import { type LatencySummary, summarizeLatencies } from "../../metrics/percentiles.js";
import { BENCH_MODEL, BENCH_SYSTEM_PROMPT, type InstantModel } from "./bench-host.js";

export interface TurnPhaseOptions {
  /** Turns to measure at most. */
  turns: number;
  /** Stop early once the phase has run this long... */
  budgetMs: number;
  /** ...and has at least this many samples. */
  minTurns: number;
  /** The engine that must serve every turn; a fallback to another fails the cell. */
  engine: string;
}

export interface TurnPhaseMetrics extends LatencySummary {
  /** Turns asked for; `samples` is lower when the time budget ran out first. */
  requested: number;
}

/**
 * Warm turns on an already open session (a running gateway that keeps it cached): `warmup`
 * unmeasured turns first, then up to `options.turns` measured ones. Returns the figures and the
 * session the turns ended in. Throws when a turn fails or another engine served it.
 */
export async function measureWarmTurns(
  host: ContextEngineHost,
  session: HostSession,
  model: InstantModel,
  options: TurnPhaseOptions & { warmup: number },
): Promise<{ metrics: TurnPhaseMetrics; session: HostSession }> {
  let current = session;
  const turn = async (index: number): Promise<number> => {
    const modelBefore = model.elapsedMs;
    const started = performance.now();
    current = await runOneTurn(host, current, model, index, options.engine);
    return performance.now() - started - (model.elapsedMs - modelBefore);
  };
  for (let index = 0; index < options.warmup; index += 1) await turn(index);
  const samples = await collectSamples(options, (index) => turn(options.warmup + index));
  return { metrics: { ...summarizeLatencies(samples), requested: options.turns }, session: current };
}

/**
 * Cold turns: each opens the transcript from disk (lock, read, parse), rebuilds the context and
 * runs one turn; the close after it is not timed. The session must not be open elsewhere.
 */
export async function measureColdTurns(
  host: ContextEngineHost,
  store: JsonlTranscriptStore,
  sessionId: string,
  model: InstantModel,
  options: TurnPhaseOptions,
): Promise<TurnPhaseMetrics> {
  const samples = await collectSamples(options, async (index) => {
    const modelBefore = model.elapsedMs;
    const started = performance.now();
    const session = await TranscriptHostSession.openOrCreate(store, { agentId: "main", sessionId });
    let ended: HostSession = session;
    try {
      ended = await runOneTurn(host, session, model, index, options.engine);
      return performance.now() - started - (model.elapsedMs - modelBefore);
    } finally {
      await closeSession(ended);
    }
  });
  return { ...summarizeLatencies(samples), requested: options.turns };
}

async function runOneTurn(
  host: ContextEngineHost,
  session: HostSession,
  model: InstantModel,
  index: number,
  engine: string,
): Promise<HostSession> {
  const result = await host.runTurn({
    session,
    prompt: `Turn ${index}: carry on with the next step of the plan.`,
    systemPrompt: BENCH_SYSTEM_PROMPT,
    model: BENCH_MODEL,
    callModel: model.callModel,
  });
  if (result.engineId !== engine) {
    throw new Error(
      `turn ${index} was served by "${result.engineId}", not "${engine}" (the engine fell back)`,
    );
  }
  const compacted = result.compactions.filter((outcome) => outcome.result.compacted);
  if (compacted.length > 0) {
    throw new Error(
      `turn ${index} compacted (${compacted[0]?.trigger}); the bench window is meant to prevent that`,
    );
  }
  return result.session;
}

async function collectSamples(
  options: Pick<TurnPhaseOptions, "turns" | "budgetMs" | "minTurns">,
  sample: (index: number) => Promise<number>,
): Promise<number[]> {
  const samples: number[] = [];
  const started = performance.now();
  for (let index = 0; index < options.turns; index += 1) {
    samples.push(await sample(index));
    const spent = performance.now() - started;
    if (spent >= options.budgetMs && samples.length >= options.minTurns) break;
  }
  return samples;
}

/** Closes a session the bench opened; only transcript sessions hold a lock to release. */
export async function closeSession(session: HostSession): Promise<void> {
  if (session instanceof TranscriptHostSession) await session.close();
}
