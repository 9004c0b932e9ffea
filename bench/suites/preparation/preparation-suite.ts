/**
 * The preparation suite (`--suite preparation`): how much of a session's summarizing its
 * threshold compactions find prepared, and how long they wait for the rest, under three budgets.
 * Issue #8 asks for summaries prepared in the background and published when the threshold is
 * reached; what a compaction still makes itself is a model call it waits for.
 *
 * Each cell is one engine on a synthetic session of 2,000 messages (1,000 with `--quick`; every turn
 * pauses, so the replay takes real time) replayed turn by turn (`threshold-replay.ts`) once per
 * budget, each into a store of its own. Engines that do not own compaction get n/a. The counts
 * depend on the summarizer's latency against the pause, so they move a little from run to run.
 */
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import type { CellSpec } from "../../cell.js";
import { loadBenchTokenCounter } from "../../token-counters.js";
import { loadWorkload } from "../../workloads/workload.js";
import { splitReplay } from "../engine-speed/engine-history.js";
import { createEngineUnderTest } from "../engine-speed/engine-under-test.js";
import type { BenchSuite, CellContext, MetricRow } from "../suite.js";
import { delayedSummarizer, replayThresholdCompactions, type ThresholdFigures } from "./threshold-replay.js";

/** The budgets each cell replays under: a small model's, a mid one, issue #8's 128k. */
export const PREPARATION_BUDGETS = [32_000, 64_000, 128_000] as const;
/** A model's summary takes four times the pause between turns (200 ms against 50, scaled down). */
const SUMMARY_LATENCY_MS = 40;
const PAUSE_MS = 10;

export type PreparationMetrics =
  | { ownsCompaction: true; messages: number; budgets: ThresholdFigures[] }
  | { ownsCompaction: false; messages: number };

async function runPreparationCell(cell: CellSpec, context: CellContext): Promise<PreparationMetrics> {
  const workload = await loadWorkload(cell.workload, cell.settings.piSessionsDir);
  const { turns } = splitReplay(workload.entries(), { historyMessages: 0, turns: Number.MAX_SAFE_INTEGER });
  const counter = await loadBenchTokenCounter("chars-cached");
  const budgets: ThresholdFigures[] = [];
  for (const budgetTokens of PREPARATION_BUDGETS) {
    const stateDir = join(context.home, `budget-${budgetTokens}`);
    await mkdir(stateDir, { recursive: true });
    const summarizer = delayedSummarizer(SUMMARY_LATENCY_MS);
    const engine = await createEngineUnderTest({
      engine: cell.engine,
      counter,
      summarizer,
      stateDir,
      workspaceDir: context.home,
    });
    try {
      if (engine.info.ownsCompaction !== true) return { ownsCompaction: false, messages: workload.messages };
      context.log(`${turns.length} turns under a ${budgetTokens}-token budget`);
      budgets.push(
        await replayThresholdCompactions(engine, stateDir, summarizer, turns, {
          budgetTokens,
          summaryLatencyMs: SUMMARY_LATENCY_MS,
          pauseMs: PAUSE_MS,
        }),
      );
    } finally {
      await engine.dispose?.();
    }
  }
  return { ownsCompaction: true, messages: workload.messages, budgets };
}

function rowsFor(budgetTokens: number): MetricRow<PreparationMetrics>[] {
  const label = `${budgetTokens / 1000}k`;
  const figures = (metrics: PreparationMetrics) =>
    metrics.ownsCompaction ? metrics.budgets.find((entry) => entry.budgetTokens === budgetTokens) : undefined;
  const missing = (metrics: PreparationMetrics) =>
    metrics.ownsCompaction ? undefined : "the engine does not own compaction";
  return [
    {
      key: `thresholdCompactions${label}`,
      label: `threshold compactions (${label} budget)`,
      format: "count",
      value: (metrics) => figures(metrics)?.passes,
      missing,
    },
    {
      key: `summariesMadeInCompaction${label}`,
      label: `summaries made during them, not prepared (${label})`,
      format: "percent",
      value: (metrics) => {
        const entry = figures(metrics);
        return entry === undefined || entry.summaries === 0
          ? undefined
          : 1 - entry.prepared / entry.summaries;
      },
      missing,
    },
    {
      key: `summarizerCalls${label}`,
      label: `summarizer calls in all (${label})`,
      format: "count",
      value: (metrics) => figures(metrics)?.calls,
      missing,
    },
    {
      key: `compactionWaitMs${label}`,
      label: `maintain waiting in compactions, total ms (${label})`,
      format: "ms",
      value: (metrics) => figures(metrics)?.waitMs,
      missing,
    },
    {
      key: `longestCompactionWaitMs${label}`,
      label: `longest compaction wait, ms (${label})`,
      format: "ms",
      value: (metrics) => figures(metrics)?.longestWaitMs,
      missing,
    },
  ];
}

export const preparationSuite: BenchSuite<PreparationMetrics> = {
  name: "preparation",
  description:
    "threshold compactions over a session replayed turn by turn with a 40 ms summarizer and 10 ms between turns: " +
    "how many of their summaries were prepared in the background, how long maintain waited for the rest",
  run: runPreparationCell,
  rows: PREPARATION_BUDGETS.flatMap(rowsFor),
  cells: {
    workloads: ({ quick }) => [{ kind: "synthetic", messages: quick ? 1_000 : 2_000 }],
    counters: ["chars-cached"],
  },
};
