/**
 * The quality table: one row per figure, engines side by side. Row keys are stable (the JSON and
 * `gate-thresholds.json` use them); labels name the metric id of the reference (M1–M13).
 */
import type { MetricRow } from "../suite.js";
import { diskRows } from "./disk-rows.js";
import type { FigureRow } from "./figure-row.js";
import { judgedRows } from "./judge/judged-rows.js";
import { type Figure, isNotApplicable, mean, notApplicable } from "./metrics/figure.js";
import type { NeedleLevelReport } from "./metrics/needle-survival.js";
import type { RecallRankingReport } from "./metrics/recall-ranking.js";
import type { QualityMetrics } from "./quality-suite.js";

const M1_BUDGETS = [2_000, 4_000, 8_000, 16_000];

function budgetLabel(budget: number): string {
  return `${budget / 1_000}k`;
}

function evidenceRows(kind: "allRaw" | "allCovered", title: string): FigureRow[] {
  return M1_BUDGETS.map((budget) => ({
    key: `m1${kind === "allRaw" ? "Verbatim" : "Covered"}${budgetLabel(budget)}`,
    label: `M1 evidence ${title}, all (${budgetLabel(budget)})`,
    format: "percent",
    figure: (metrics) =>
      metrics.conversation.evidence.byBudget[String(budget)]?.[kind] ?? notApplicable("budget not in preset"),
  }));
}

function longEvidenceRows(kind: "allRaw" | "allCovered", title: string): FigureRow[] {
  return [32_000, 64_000, 128_000].map((budget) => ({
    key: `m1Long${kind === "allRaw" ? "Verbatim" : "Covered"}${budgetLabel(budget)}`,
    label: `M1 in long transcripts, ${title} (${budgetLabel(budget)})`,
    format: "percent",
    figure: (metrics) => {
      const long = metrics.longTranscript;
      if (isNotApplicable(long) || typeof long === "number") return long;
      return long.evidence.byBudget[String(budget)]?.[kind] ?? notApplicable("budget not in preset");
    },
  }));
}

function ranking(
  report: RecallRankingReport | Figure,
  pick: (report: RecallRankingReport) => number,
): Figure {
  if (typeof report === "number" || isNotApplicable(report)) return report;
  return pick(report);
}

function lastLevel(metrics: QualityMetrics): NeedleLevelReport {
  return metrics.needles.levels.at(-1) as NeedleLevelReport;
}

function confusableMean(metrics: QualityMetrics, pick: "ordered" | "similarity"): Figure {
  const sets = metrics.needles.confusablesAfter;
  if (!Array.isArray(sets)) return sets;
  return mean(sets.map((set) => set[pick]));
}

function crashFigure(
  metrics: QualityMetrics,
  pick: (crash: Exclude<QualityMetrics["crash"], Figure>) => Figure,
): Figure {
  const crash = metrics.crash;
  return typeof crash === "number" || isNotApplicable(crash) ? crash : pick(crash);
}

const FIGURE_ROWS: FigureRow[] = [
  {
    key: "replayFailures",
    label: "replayed turns the host could not run",
    format: "count",
    figure: (metrics) =>
      metrics.conversation.replayFailures.length +
      metrics.needles.replayFailures.length +
      (isNotApplicable(metrics.longTranscript) || typeof metrics.longTranscript === "number"
        ? 0
        : metrics.longTranscript.replayFailures.length),
  },
  ...evidenceRows("allRaw", "verbatim"),
  ...evidenceRows("allCovered", "covered"),
  ...judgedRows(M1_BUDGETS, budgetLabel),
  ...longEvidenceRows("allRaw", "verbatim"),
  ...longEvidenceRows("allCovered", "covered"),
  ...[5, 10, 25].map(
    (k): FigureRow => ({
      key: `m2RecallAt${k}`,
      label: `M2 recall@${k} (after compaction)`,
      format: "percent",
      figure: (metrics) =>
        ranking(metrics.conversation.recallAfterCompaction, (report) => report.recallAt[String(k)] ?? 0),
    }),
  ),
  {
    key: "m2Mrr",
    label: "M2 MRR (after compaction)",
    format: "decimal",
    figure: (metrics) => ranking(metrics.conversation.recallAfterCompaction, (report) => report.mrr),
  },
  {
    key: "m2RecallAt10Before",
    label: "M2 recall@10 (before compaction)",
    format: "percent",
    figure: (metrics) =>
      ranking(metrics.conversation.recallBeforeCompaction, (report) => report.recallAt["10"] ?? 0),
  },
  {
    key: "m3RoundTrip",
    label: "M3 messages byte-exact after compactions",
    format: "percent",
    figure: (metrics) => metrics.needles.roundTrip.exactShare,
  },
  {
    key: "m4VerbatimN0",
    label: "M4 needles verbatim in context, N=0",
    format: "percent",
    figure: (metrics) => metrics.needles.levels[0]?.verbatim ?? notApplicable("no level 0"),
  },
  {
    key: "m4VerbatimLast",
    label: "M4 needles verbatim in context, N=last",
    format: "percent",
    figure: (metrics) => lastLevel(metrics).verbatim,
  },
  {
    key: "m4CodeInContextLast",
    label: "M4 needle code in context (raw or summary), N=last",
    format: "percent",
    figure: (metrics) => lastLevel(metrics).codeInContext,
  },
  {
    key: "m4RecallCodeLast",
    label: "M4 recall(code) top-5, N=last",
    format: "percent",
    figure: (metrics) => lastLevel(metrics).recallByCode,
  },
  {
    key: "m4RecallFactLast",
    label: "M4 recall(fact words) top-10, N=last",
    format: "percent",
    figure: (metrics) => lastLevel(metrics).recallByFact,
  },
  {
    key: "m4ExpandExactLast",
    label: "M4 expand byte-exact, N=last",
    format: "percent",
    figure: (metrics) => lastLevel(metrics).expandExact,
  },
  {
    key: "m4Compactions",
    label: "M4 compactions done (N=last forced)",
    format: "count",
    figure: (metrics) => lastLevel(metrics).compactions,
  },
  {
    key: "m5Ordered",
    label: "M5 confusables in order via recall",
    format: "percent",
    figure: (metrics) => confusableMean(metrics, "ordered"),
  },
  {
    key: "m5Similarity",
    label: "M5 confusable text similarity",
    format: "decimal",
    figure: (metrics) => confusableMean(metrics, "similarity"),
  },
  {
    key: "m6Calls",
    label: "M6 requests under a budget",
    format: "count",
    figure: (metrics) => metrics.budget.calls,
  },
  {
    key: "m6OverBudget",
    label: "M6 requests over budget",
    format: "percent",
    figure: (metrics) => metrics.budget.overBudgetShare,
  },
  {
    key: "m6MaxOvershoot",
    label: "M6 max overshoot",
    format: "percent",
    figure: (metrics) => metrics.budget.maxOvershoot,
  },
  {
    key: "m6UtilizationP50",
    label: "M6 utilization p50 (history over budget)",
    format: "percent",
    figure: (metrics) => metrics.budget.utilizationP50,
  },
  {
    key: "m6OverBudgetClaude",
    label: "M6 over budget at ×1.3 (Claude)",
    format: "percent",
    figure: (metrics) => metrics.budget.calibrated.overBudgetShare,
  },
  {
    key: "m6FailedCalls",
    label: "M6 asks with no request (host gave up)",
    format: "count",
    figure: (metrics) => metrics.budget.failedCalls,
  },
  {
    key: "m7Requests",
    label: "M7 requests checked",
    format: "count",
    figure: (metrics) => metrics.structure.requests,
  },
  {
    key: "m7Violations",
    label: "M7 structural violations",
    format: "count",
    figure: (metrics) => metrics.structure.violations,
  },
  {
    key: "m8Stable",
    label: "M8 prefix-stable turns between compactions",
    format: "percent",
    figure: (metrics) => metrics.conversation.stability.stableShare,
  },
  {
    key: "m8StableCacheable",
    label: "M8 … without the per-request recall block",
    format: "percent",
    figure: (metrics) => metrics.conversation.stability.cacheableStableShare,
  },
  {
    key: "m8CacheServed",
    label: "M8 prompt tokens a prefix cache serves",
    format: "percent",
    figure: (metrics) => metrics.conversation.promptCache.cacheReadShare,
  },
  ...[32_000, 64_000, 128_000].map(
    (budget): FigureRow => ({
      key: `m8CacheServedLong${budgetLabel(budget)}`,
      label: `M8 … in long transcripts (${budgetLabel(budget)})`,
      format: "percent",
      figure: (metrics) => {
        const long = metrics.longTranscript;
        if (isNotApplicable(long) || typeof long === "number") return long;
        return long.promptCache[String(budget)]?.cacheReadShare ?? notApplicable("budget not in preset");
      },
    }),
  ),
  {
    key: "m8PrefixKept",
    label: "M8 prefix tokens kept per compaction",
    format: "count",
    figure: (metrics) =>
      metrics.conversation.stability.compactionEvents === 0
        ? notApplicable("no compactions")
        : metrics.conversation.stability.prefixTokensKeptMean,
  },
  {
    key: "m9Slope",
    label: "M9 turn latency vs history",
    format: "decimal",
    timing: true,
    figure: () => notApplicable("speed suite"),
  },
  {
    key: "m10TurnP50",
    label: "M10 turn (ingest+assemble) p50 ms",
    format: "ms",
    timing: true,
    figure: (metrics) => metrics.conversation.turnLatency.p50Ms,
  },
  {
    key: "m10TurnP95",
    label: "M10 turn (ingest+assemble) p95 ms",
    format: "ms",
    timing: true,
    figure: (metrics) => metrics.conversation.turnLatency.p95Ms,
  },
  {
    key: "m10BootstrapRate",
    label: "M10 bootstrap ingest (messages/s)",
    format: "rate",
    timing: true,
    figure: (metrics) => crashFigure(metrics, (crash) => crash.bootstrap.messagesPerSecond),
  },
  {
    key: "m10BootstrapMb",
    label: "M10 bootstrap ingest (MB/s)",
    format: "decimal",
    timing: true,
    figure: (metrics) => crashFigure(metrics, (crash) => crash.bootstrap.megabytesPerSecond),
  },
  ...diskRows(),
  {
    key: "m12CompactionsPer100k",
    label: "M12 compactions / 100k tokens",
    format: "decimal",
    figure: (metrics) => metrics.conversation.compaction.per100kTokens,
  },
  {
    key: "m12TokensRemoved",
    label: "M12 tokens removed / compaction",
    format: "count",
    figure: (metrics) => metrics.conversation.compaction.tokensRemovedMean,
  },
  {
    key: "m12Compression",
    label: "M12 summary / source tokens",
    format: "decimal",
    figure: (metrics) => metrics.conversation.compaction.compression,
  },
  {
    key: "m12SummaryDepth",
    label: "M12 deepest summary chain",
    format: "count",
    figure: (metrics) => metrics.conversation.compaction.maxSummaryDepth,
  },
  {
    key: "m12ToolResultsMoved",
    label: "M12 tool results moved to side storage",
    format: "count",
    figure: (metrics) => metrics.conversation.compaction.toolResultsMoved,
  },
  {
    key: "m13Mismatched",
    label: "M13 crash-replay mismatched messages",
    format: "count",
    figure: (metrics) => crashFigure(metrics, (crash) => crash.mismatched),
  },
  {
    key: "m13Duplicates",
    label: "M13 crash-replay duplicates",
    format: "count",
    figure: (metrics) => crashFigure(metrics, (crash) => crash.duplicates),
  },
];

/** Every figure of a cell by row key: what the gate compares with its thresholds. */
export function qualityFigures(metrics: QualityMetrics): Record<string, Figure> {
  return Object.fromEntries(FIGURE_ROWS.map((row) => [row.key, row.figure(metrics)]));
}

/**
 * Keys of rows never gated: timings, and the model-judged rows (a gate run has no model, and a
 * model's answers are not deterministic). The gate refuses thresholds on them.
 */
export const UNGATED_ROW_KEYS: ReadonlySet<string> = new Set(
  FIGURE_ROWS.filter((row) => row.timing === true || row.judged === true).map((row) => row.key),
);

export const QUALITY_ROWS: readonly MetricRow<QualityMetrics>[] = FIGURE_ROWS.map((row) => ({
  key: row.key,
  label: row.label,
  format: row.format,
  value: (metrics) => {
    const figure = row.figure(metrics);
    return typeof figure === "number" ? figure : undefined;
  },
  missing: (metrics) => {
    const figure = row.figure(metrics);
    return isNotApplicable(figure) ? figure.na : undefined;
  },
}));
