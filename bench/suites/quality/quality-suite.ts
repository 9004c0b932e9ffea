/**
 * The quality suite: what the model sees, measured, for one engine per cell. The scenarios run
 * through the engine (a LoCoMo-style conversation, the same inside long agent transcripts, a coding
 * session with needles, a crash and restart); every model request of all of them feeds budget
 * compliance and structural validity. Deterministic apart from the timing rows.
 */
import { loadO200kTokenCounter, withTokenCache } from "@clew/core";
import type { CellSpec } from "../../cell.js";
import type { BenchSuite, CellContext } from "../suite.js";
import { type BudgetReport, summarizeBudget } from "./metrics/budget-compliance.js";
import { type Figure, notApplicable } from "./metrics/figure.js";
import type { StructureReport } from "./metrics/structural-validity.js";
import { type QualityPresetId, qualityPreset } from "./presets.js";
import { QUALITY_ROWS } from "./quality-rows.js";
import { type ConversationReport, runConversationScenario } from "./scenarios/conversation-scenario.js";
import { type CrashReport, runCrashScenario } from "./scenarios/crash-scenario.js";
import {
  type LongTranscriptReport,
  runLongTranscriptScenario,
} from "./scenarios/long-transcript-scenario.js";
import { type NeedleReport, runNeedleScenario } from "./scenarios/needle-scenario.js";
import { createQualityRun } from "./scenarios/quality-run.js";

export interface QualityMetrics {
  preset: QualityPresetId;
  engine: string;
  conversation: ConversationReport;
  longTranscript: LongTranscriptReport | Figure;
  needles: NeedleReport;
  crash: CrashReport | Figure;
  budget: BudgetReport;
  /** Why asks produced no model request (the host gave up), the first few. */
  askFailures: string[];
  structure: StructureReport;
}

/** Runs every scenario for `cell.engine`. Throws when the cell's workload is not a quality preset. */
export async function runQualityCell(cell: CellSpec, context: CellContext): Promise<QualityMetrics> {
  if (cell.workload.kind !== "quality")
    throw new Error(`the quality suite runs quality presets, not ${cell.workload.kind} workloads`);
  const preset = qualityPreset(cell.workload.preset);
  const run = createQualityRun({
    engine: cell.engine,
    root: context.home,
    counter: withTokenCache(await loadO200kTokenCounter()),
    log: context.log,
  });
  const conversation = await runConversationScenario(run, preset);
  const longTranscript = await runLongTranscriptScenario(run, preset, cell.settings.piSessionsDir);
  const needles = await runNeedleScenario(run, preset);
  const crash = preset.crash
    ? await runCrashScenario(run, preset)
    : notApplicable(`not run in preset ${preset.id}`);
  return {
    preset: preset.id,
    engine: cell.engine,
    conversation,
    longTranscript,
    needles,
    crash,
    budget: summarizeBudget(run.budgetCalls, run.failedAsks),
    askFailures: run.failureExamples,
    structure: run.structure.result(),
  };
}

export const qualitySuite: BenchSuite<QualityMetrics> = {
  name: "quality",
  description: "what the model sees: evidence, recall, needles, budget, structure, cache, crash safety",
  run: runQualityCell,
  rows: QUALITY_ROWS,
  cells: {
    // --quick runs the gate's small workload; the counter is always exact o200k (loaded above).
    workloads: (options) => [
      { kind: "quality", preset: options.preset ?? (options.quick ? "gate" : "full") },
    ],
    counters: ["o200k-cached"],
  },
};
