/**
 * The generated coding session with needles: replayed with room for everything, then compacted
 * N = 1…5 times by halving the budget, asking for every needle at each level. Feeds M4 (survival),
 * M5 (confusables, before and after the compactions, through recall) and M3 (round-trip of every
 * message after the last compaction), and every request to M6 and M7.
 */
import { type AgentMessage, countMessagesTokens, type UserMessage } from "@clew/core";
import { type AgentSession, generateAgentSession } from "../../../workloads/agent/generate-agent-session.js";
import { messagesOfTurns } from "../../../workloads/replay-turn.js";
import type { EngineSession } from "../harness/engine-session.js";
import { Provenance } from "../harness/provenance.js";
import { type ConfusableSetReport, probeConfusables } from "../metrics/confusables.js";
import { type Figure, notApplicable } from "../metrics/figure.js";
import {
  type NeedleContextResult,
  type NeedleLevelReport,
  type NeedleProbe,
  type NeedleRecallResult,
  needleInContext,
  needleRecall,
  summarizeNeedleLevel,
} from "../metrics/needle-survival.js";
import { compareRoundTrip, type RoundTripReport } from "../metrics/round-trip.js";
import { type QualityPreset, summaryCap } from "../presets.js";
import {
  openSession,
  type QualityRun,
  recordFailedAsk,
  recordRequest,
  replayDemand,
  storedMessages,
  tokensBeforeTurns,
} from "./quality-run.js";

export interface NeedleReport {
  messages: number;
  tokens: number;
  levels: NeedleLevelReport[];
  confusablesBefore: ConfusableSetReport[] | Figure;
  confusablesAfter: ConfusableSetReport[] | Figure;
  roundTrip: RoundTripReport & { source: "recall store" | "transcript" };
  replayFailures: string[];
}

/** Budgets from the largest (everything fits with room) down, halving `compactions` times. */
export function needleBudgets(tokens: number, compactions: number, minBudget: number): number[] {
  const fits = 2 ** Math.ceil(Math.log2(tokens * 1.25));
  const largest = Math.max(fits, minBudget * 2 ** compactions);
  return Array.from({ length: compactions + 1 }, (_, level) => largest / 2 ** level);
}

export async function runNeedleScenario(run: QualityRun, preset: QualityPreset): Promise<NeedleReport> {
  const workload = generateAgentSession(preset.agent);
  const provenance = new Provenance(workload.sources);
  const originals = messagesOfTurns(workload.turns);
  const tokens = countMessagesTokens(run.counter, originals);
  const budgets = needleBudgets(tokens, preset.needleCompactions, preset.minNeedleBudget);
  const probes = needleProbes(workload, provenance);
  run.log(`needles: ${originals.length} messages, ${tokens} tokens, budgets ${budgets.join(" → ")}`);
  const before = tokensBeforeTurns(workload.turns, run.counter);
  const { session } = await openSession(run, {
    name: "needles",
    budget: budgets[0] ?? 0,
    provenance,
    // Sized for the smallest budget, where a summary must still leave room for the recent turns.
    summaryTokens: summaryCap(budgets.at(-1) ?? 0),
  });
  try {
    const outcome = await session.replay(workload.turns, (record, turn) =>
      recordRequest(
        run,
        "needles",
        record,
        replayDemand(before, workload.turns, { turn, step: record.step }, run.counter),
      ),
    );
    const confusablesBefore = await confusables(session, workload, provenance);
    const levels: NeedleLevelReport[] = [];
    for (const [level, budget] of budgets.entries()) {
      if (level > 0) await session.compact(budget);
      session.budget = budget;
      levels.push(await probeLevel(run, session, probes, { level, tokens }));
    }
    const stored = await storedMessages(session);
    return {
      messages: originals.length,
      tokens,
      levels,
      confusablesBefore,
      confusablesAfter: await confusables(session, workload, provenance),
      roundTrip: { source: stored.source, ...compareRoundTrip(originals, stored.messages) },
      replayFailures: outcome.failures,
    };
  } finally {
    await session.close();
  }
}

function needleProbes(workload: AgentSession, provenance: Provenance): NeedleProbe[] {
  return workload.needles.map((needle) => ({
    code: needle.code,
    sentence: needle.sentence,
    factQuery: needle.factQuery,
    carrier: provenance.messageOf(needle.sourceId) as AgentMessage,
  }));
}

async function probeLevel(
  run: QualityRun,
  session: EngineSession,
  probes: readonly NeedleProbe[],
  input: { level: number; tokens: number },
): Promise<NeedleLevelReport> {
  const { level } = input;
  const context: (NeedleContextResult | undefined)[] = [];
  const recalled: NeedleRecallResult[] = [];
  for (const probe of probes) {
    const question: UserMessage = { role: "user", content: probe.factQuery, timestamp: Date.UTC(2024, 5, 1) };
    const record = await session.ask(question);
    if ("failed" in record) {
      recordFailedAsk(run, `needles N=${level} ${probe.code}`, record.failed);
      context.push(undefined);
    } else {
      recordRequest(run, `needles N=${level}`, record, input.tokens + run.counter.countMessage(question));
      context.push(needleInContext(record.messages.slice(0, -1), probe));
    }
    if (session.recall !== undefined) recalled.push(await needleRecall(session.recall, probe));
  }
  return summarizeNeedleLevel({
    level,
    budget: session.budget,
    compactions: session.compactions.filter((item) => item.phase === "manual").length,
    context,
    recall: session.recall === undefined ? undefined : recalled,
  });
}

async function confusables(
  session: EngineSession,
  workload: AgentSession,
  provenance: Provenance,
): Promise<ConfusableSetReport[] | Figure> {
  const recall = session.recall;
  if (recall === undefined) return notApplicable("no recall tool");
  const reports: ConfusableSetReport[] = [];
  for (const set of workload.confusables) {
    reports.push(
      await probeConfusables(recall, {
        question: set.question,
        needles: set.needles.map((needle) => ({
          code: needle.code,
          carrier: provenance.messageOf(needle.sourceId) as AgentMessage,
        })),
      }),
    );
  }
  return reports;
}
