/**
 * The quality suite: what the model sees, measured, for one engine per cell. The scenarios run
 * through the engine (a LoCoMo-style conversation, the same inside long agent transcripts, a coding
 * session with needles, a crash and restart); every model request of all of them feeds budget
 * compliance and structural validity. Deterministic apart from the timing rows.
 */
import { loadO200kTokenCounter, withTokenCache } from "@clew/core";
import type { CellSpec } from "../../cell.js";
import type { BenchSuite, CellContext } from "../suite.js";
import { type AnswerAccuracyReport, AnswerAccuracyTally } from "./judge/answer-accuracy.js";
import { createAnswerJudge } from "./judge/answer-judge.js";
import type { JudgeSettings } from "./judge/judge.js";
import { type BudgetReport, summarizeBudget } from "./metrics/budget-compliance.js";
import { type Figure, type NotApplicable, notApplicable } from "./metrics/figure.js";
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
  /** M1 answers judged by a model (`--judge`); `n/a (no --judge)` by default. */
  answerAccuracy: AnswerAccuracyReport | NotApplicable;
}

/** The n/a reason of the judged rows when no judge was asked for. */
export const NO_JUDGE = "no --judge";

/** Runs every scenario for `cell.engine`. Throws when the cell's workload is not a quality preset. */
export async function runQualityCell(cell: CellSpec, context: CellContext): Promise<QualityMetrics> {
  if (cell.workload.kind !== "quality")
    throw new Error(`the quality suite runs quality presets, not ${cell.workload.kind} workloads`);
  const preset = qualityPreset(cell.workload.preset);
  // Resolved before any scenario runs, so a misconfigured model fails the cell at once.
  const judge = await openJudge(cell.settings.judge);
  const run = createQualityRun({
    engine: cell.engine,
    root: context.home,
    counter: withTokenCache(await loadO200kTokenCounter()),
    log: context.log,
  });
  const conversation = await runConversationScenario(run, preset, judge);
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
    answerAccuracy: judge?.report() ?? notApplicable(NO_JUDGE),
  };
}

/**
 * The judge of `--judge`, over the model `clew.json` in `settings.clewHome` describes; API keys
 * come from this process's environment. Throws `ConfigError`/`ModelConfigError` when the model
 * cannot be resolved.
 */
async function openJudge(settings: JudgeSettings | undefined): Promise<AnswerAccuracyTally | undefined> {
  if (settings === undefined) return undefined;
  // Loaded only here: @clew/agent's providers take over a second to import, and most runs have no judge.
  const { createClewCompletion } = await import("./judge/clew-completion.js");
  const complete = await createClewCompletion({
    model: settings.model,
    clewHome: settings.clewHome,
    env: process.env,
  });
  return new AnswerAccuracyTally(createAnswerJudge(settings.model, complete), settings.questions);
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
