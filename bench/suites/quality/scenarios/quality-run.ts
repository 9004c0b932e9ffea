/**
 * What the scenarios of one quality cell share: the engine, a temporary root, the exact counter,
 * and the tallies every model request feeds (budget compliance M6, structure M7).
 */
import { join } from "node:path";
import { type AgentMessage, countMessagesTokens, type FsyncPolicy, type TokenCounter } from "@clew/core";
import { benchEngine } from "../../../engines.js";
import type { ReplayTurn } from "../../../workloads/replay-turn.js";
import { EngineSession, type RequestRecord } from "../harness/engine-session.js";
import type { Provenance } from "../harness/provenance.js";
import { createProvenanceSummarizer, type ProvenanceSummarizer } from "../harness/provenance-summarizer.js";
import type { BudgetCall } from "../metrics/budget-compliance.js";
import { checkStructure, StructureTally } from "../metrics/structural-validity.js";

/** A window so large nothing compacts: for replays that only ingest. */
export const UNBOUNDED_BUDGET = 1_000_000_000;

export interface QualityRun {
  engine: string;
  /** Temporary folder of the cell; each session gets a subfolder. */
  root: string;
  counter: TokenCounter;
  log(message: string): void;
  budgetCalls: BudgetCall[];
  failedAsks: number;
  /** Why asks produced no request, the first few. */
  failureExamples: string[];
  structure: StructureTally;
}

export function createQualityRun(input: Pick<QualityRun, "engine" | "root" | "counter" | "log">): QualityRun {
  return { ...input, budgetCalls: [], failedAsks: 0, failureExamples: [], structure: new StructureTally() };
}

/** Counts an ask that produced no request. */
export function recordFailedAsk(run: QualityRun, label: string, reason: string): void {
  run.failedAsks += 1;
  if (run.failureExamples.length < 5) run.failureExamples.push(`${label}: ${reason}`);
}

/**
 * Opens a session of the run's engine in `<root>/<name>` with a stub summarizer capped at
 * `summaryTokens`. Throws when the host resolved another engine than the one under test (a
 * fallback would measure legacy under the wrong name).
 */
export async function openSession(
  run: QualityRun,
  input: { name: string; budget: number; provenance: Provenance; summaryTokens: number; fsync?: FsyncPolicy },
): Promise<{ session: EngineSession; summarizer: ProvenanceSummarizer }> {
  const summarizer = createProvenanceSummarizer({
    counter: run.counter,
    sourceIdOf: (message) => input.provenance.idOf(message),
    maxTokens: input.summaryTokens,
  });
  const session = await EngineSession.open({
    engine: run.engine,
    root: join(run.root, input.name),
    sessionId: input.name,
    counter: run.counter,
    summarizer,
    budget: input.budget,
    ...(input.fsync === undefined ? {} : { fsync: input.fsync }),
  });
  const resolved = await session.engineId();
  if (resolved !== (benchEngine(run.engine).engineInfoId ?? run.engine)) {
    await session.close();
    throw new Error(`the host resolved engine "${resolved}" instead of "${run.engine}"`);
  }
  return { session, summarizer };
}

/**
 * Feeds one request to the M7 tally, and to M6 when it was made under a real budget. `demand` is
 * the tokens of everything the engine could have sent (history so far and the turn in progress).
 */
export function recordRequest(run: QualityRun, label: string, record: RequestRecord, demand: number): void {
  run.structure.add(label, checkStructure(record.messages, record.tail));
  if (record.budget < UNBOUNDED_BUDGET) {
    const tokens = countMessagesTokens(run.counter, record.messages);
    run.budgetCalls.push({ budget: record.budget, tokens, demand });
  }
}

/** Tokens of every turn before each turn: `before[t]` is the history turn t starts from. */
export function tokensBeforeTurns(turns: readonly ReplayTurn[], counter: TokenCounter): number[] {
  const before: number[] = [];
  let total = 0;
  for (const turn of turns) {
    before.push(total);
    total += countMessagesTokens(counter, [turn.prompt, ...turn.steps.flat()]);
  }
  return before;
}

/** What a replay request could have held: the history before its turn plus the turn so far. */
export function replayDemand(
  before: readonly number[],
  turns: readonly ReplayTurn[],
  position: { turn: number; step: number },
  counter: TokenCounter,
): number {
  const turn = turns[position.turn];
  const soFar = turn === undefined ? [] : [turn.prompt, ...turn.steps.slice(0, position.step).flat()];
  return (before[position.turn] ?? 0) + countMessagesTokens(counter, soFar);
}

/**
 * What the engine stores, for the round-trip and crash checks: its recall store when it lists one,
 * else the host's transcript (for engines like `legacy` the transcript is the store).
 */
export async function storedMessages(
  session: EngineSession,
): Promise<{ source: "recall store" | "transcript"; messages: AgentMessage[] }> {
  const list = session.recall?.list;
  if (session.recall !== undefined && list !== undefined) {
    const messages: AgentMessage[] = [];
    for (const id of await list()) {
      const message = await session.recall.read(id);
      if (message !== undefined) messages.push(message);
    }
    return { source: "recall store", messages };
  }
  return { source: "transcript", messages: (await session.storedMessages()).messages };
}
