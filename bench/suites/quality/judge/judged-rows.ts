/**
 * The model-judged rows of the quality table: M1 answer accuracy per budget and the judge's model
 * calls, `n/a (no --judge)` by default. Marked `judged`, so the gate never takes a threshold on them.
 */

import type { FigureRow } from "../figure-row.js";
import { isNotApplicable, notApplicable } from "../metrics/figure.js";

export function judgedRows(budgets: readonly number[], budgetLabel: (budget: number) => string): FigureRow[] {
  const accuracy = budgets.map(
    (budget): FigureRow => ({
      key: `m1JudgeAccuracy${budgetLabel(budget)}`,
      label: `M1 answer accuracy, judge (${budgetLabel(budget)})`,
      format: "percent",
      judged: true,
      figure: (metrics) => {
        const report = metrics.answerAccuracy;
        if (isNotApplicable(report)) return report;
        return report.byBudget[String(budget)]?.accuracy ?? notApplicable("budget not in preset");
      },
    }),
  );
  const calls: FigureRow = {
    key: "m1JudgeCalls",
    label: "M1 judge model calls (answers + grades)",
    format: "count",
    judged: true,
    figure: (metrics) =>
      isNotApplicable(metrics.answerAccuracy) ? metrics.answerAccuracy : metrics.answerAccuracy.modelCalls,
  };
  return [...accuracy, calls];
}
