/**
 * One replay for the preparation suite: a synthetic session stored turn by turn into an engine
 * that owns compaction, with `maintain` after every turn (as a host runs it after the reply) and a
 * pause between turns (the user reading, the model answering), under one token budget. The
 * summarizer answers after a fixed delay, like a model, so background preparation competes with
 * the turns for time as it does in a session.
 *
 * What the threshold compactions did is read from the engine's flight recorder (each pass records
 * how many of its summaries were prepared), through a second connection to its store.
 */
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { type AgentMessage, type ContextEngine, readableTextParts, type Summarizer } from "@clew/core";
import {
  openSqliteStoreReadOnly,
  type SqliteLosslessStore,
  type StoredCompactionPass,
} from "@clew/engine-lossless";
import { fixedSummary } from "../pipeline/stub-summarizer.js";

export interface ReplaySettings {
  budgetTokens: number;
  /** How long the summarizer takes per summary. */
  summaryLatencyMs: number;
  /** The pause after each turn's maintenance. */
  pauseMs: number;
}

export interface ThresholdFigures {
  budgetTokens: number;
  turns: number;
  /** Threshold compactions (`maintain`) that wrote summaries. */
  passes: number;
  summaries: number;
  /** Of `summaries`, those published from summaries prepared in the background. */
  prepared: number;
  /** Summarizer calls in all, preparation and compaction. */
  calls: number;
  /** `maintain` wall time summed over the turns whose maintenance ran a compaction. */
  waitMs: number;
  /** The longest of those. */
  longestWaitMs: number;
}

/** A summarizer that answers the bench's fixed summary after `latencyMs`, counting its calls. */
export function delayedSummarizer(latencyMs: number): Summarizer & { calls: number } {
  const summary = fixedSummary();
  return {
    id: "model:bench/delayed",
    calls: 0,
    async summarize() {
      this.calls += 1;
      await sleep(latencyMs);
      return summary;
    },
  };
}

const SESSION = { sessionId: "bench-prepared", sessionKey: "bench-prepared" };

/**
 * Replays `turns` into `engine` (whose store is `stateDir/lossless.db`). Throws what the engine
 * throws, or `LosslessStoreError` when its store cannot be read.
 */
export async function replayThresholdCompactions(
  engine: ContextEngine,
  stateDir: string,
  summarizer: { calls: number },
  turns: readonly (readonly AgentMessage[])[],
  settings: ReplaySettings,
): Promise<ThresholdFigures> {
  const session = { ...SESSION, sessionFile: join(stateDir, "none.jsonl") };
  let stored: AgentMessage[] = [];
  const waits: number[] = [];
  // The first turn creates the store's file; the reader opens after it.
  let records: SqliteLosslessStore | undefined;
  let passesSeen = 0;
  try {
    for (const turn of turns) {
      const prompt = turn[0] === undefined ? "" : readableTextParts(turn[0]).join("\n");
      const budget = { tokenBudget: settings.budgetTokens };
      await engine.assemble({ ...SESSION, ...budget, messages: [...stored], prompt });
      const snapshot = [...stored, ...turn];
      await engine.afterTurn?.({
        ...session,
        ...budget,
        messages: snapshot,
        prePromptMessageCount: stored.length,
      });
      stored = snapshot;
      const started = performance.now();
      await engine.maintain?.(session);
      const elapsed = performance.now() - started;
      records ??= openSqliteStoreReadOnly(join(stateDir, "lossless.db"));
      const passes = (await passesOf(records)).length;
      if (passes > passesSeen) waits.push(elapsed);
      passesSeen = passes;
      await sleep(settings.pauseMs);
    }
    const figures =
      records === undefined ? { passes: 0, summaries: 0, prepared: 0 } : summed(await passesOf(records));
    return {
      ...figures,
      budgetTokens: settings.budgetTokens,
      turns: turns.length,
      calls: summarizer.calls,
      waitMs: waits.reduce((sum, ms) => sum + ms, 0),
      longestWaitMs: Math.max(0, ...waits),
    };
  } finally {
    await records?.close();
  }
}

function passesOf(records: SqliteLosslessStore): Promise<StoredCompactionPass[]> {
  return records.listCompactionPasses({ sessionId: SESSION.sessionId, limit: 100_000 });
}

/** The threshold compactions' summaries, and how many of them were prepared. */
function summed(
  records: readonly StoredCompactionPass[],
): Pick<ThresholdFigures, "passes" | "summaries" | "prepared"> {
  const passes = records.filter((pass) => pass.trigger === "maintain" && pass.summaryIds.length > 0);
  return {
    passes: passes.length,
    summaries: passes.reduce((sum, pass) => sum + pass.outputs.leaf + pass.outputs.condensed, 0),
    prepared: passes.reduce((sum, pass) => sum + (pass.outputs.prepared ?? 0), 0),
  };
}
