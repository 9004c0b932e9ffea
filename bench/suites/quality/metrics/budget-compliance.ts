/**
 * M6, budget compliance and utilization: for every model request made under a budget B, the o200k
 * tokens of the messages sent (pending turn included, system prompt not: B is the budget for
 * messages) against B. Also with the Claude calibration factor (×1.3 against o200k). Utilization
 * is read only where the history did not fit B: below that, sending everything is all there is.
 */
import { percentile } from "../../../metrics/percentiles.js";
import { share } from "./figure.js";

export const CLAUDE_CALIBRATION = 1.3;

export interface BudgetCall {
  budget: number;
  tokens: number;
  /** Tokens of everything the engine could have sent (the whole history and the pending turn). */
  demand: number;
}

export interface BudgetReport {
  calls: number;
  overBudget: number;
  overBudgetShare: number;
  /** max(0, tokens/B − 1) over all calls. */
  maxOvershoot: number;
  /** Requests whose history did not fit the budget: only they show whether a budget is used. */
  pressured: number;
  /** tokens/B, median over the pressured requests (0 when there are none). */
  utilizationP50: number;
  /** The same counts with tokens × 1.3. */
  calibrated: { overBudget: number; overBudgetShare: number; maxOvershoot: number };
  /** Asks that produced no request at all (the host gave up). */
  failedCalls: number;
}

export function summarizeBudget(calls: readonly BudgetCall[], failedCalls = 0): BudgetReport {
  const over = (factor: number) => calls.filter((call) => call.tokens * factor > call.budget).length;
  const overshoot = (factor: number) =>
    calls.reduce((worst, call) => Math.max(worst, (call.tokens * factor) / call.budget - 1), 0);
  const pressured = calls.filter((call) => call.demand > call.budget);
  return {
    calls: calls.length,
    overBudget: over(1),
    overBudgetShare: share(over(1), calls.length),
    maxOvershoot: overshoot(1),
    pressured: pressured.length,
    utilizationP50:
      pressured.length === 0
        ? 0
        : percentile(
            pressured.map((call) => call.tokens / call.budget),
            0.5,
          ),
    calibrated: {
      overBudget: over(CLAUDE_CALIBRATION),
      overBudgetShare: share(over(CLAUDE_CALIBRATION), calls.length),
      maxOvershoot: overshoot(CLAUDE_CALIBRATION),
    },
    failedCalls,
  };
}
