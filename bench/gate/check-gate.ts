/**
 * The gate's verdict: every threshold of every engine against the figures that engine's quality
 * cell measured. A figure that is n/a, or an engine whose cell failed or did not run, fails its
 * thresholds too: a gate must never pass because nothing was measured.
 */
import { type Figure, isNotApplicable } from "../suites/quality/metrics/figure.js";
import type { GateThresholds, Threshold } from "./gate-thresholds.js";

export interface GateFailure {
  engine: string;
  metric: string;
  value: Figure | undefined;
  threshold: Threshold;
  message: string;
}

export interface GateVerdict {
  checked: number;
  failures: GateFailure[];
}

/** What one engine's cell gave: its figures by row key, or why it has none. */
export type EngineFigures = { figures: Record<string, Figure> } | { error: string };

export function checkGate(
  thresholds: GateThresholds,
  results: Readonly<Record<string, EngineFigures>>,
  source: string,
): GateVerdict {
  const verdict: GateVerdict = { checked: 0, failures: [] };
  for (const [engine, rows] of Object.entries(thresholds.engines)) {
    const result = results[engine];
    for (const [metric, threshold] of Object.entries(rows)) {
      verdict.checked += 1;
      const value = result !== undefined && "figures" in result ? result.figures[metric] : undefined;
      const problem = describeProblem(value, threshold, result);
      if (problem === undefined) continue;
      verdict.failures.push({
        engine,
        metric,
        value,
        threshold,
        message: `${engine}: ${metric} ${problem} (${source})`,
      });
    }
  }
  return verdict;
}

function describeProblem(
  value: Figure | undefined,
  threshold: Threshold,
  result: EngineFigures | undefined,
): string | undefined {
  if (result === undefined) return "was not measured: the engine did not run";
  if ("error" in result) return `was not measured: the cell failed (${result.error})`;
  if (value === undefined) return "was not measured";
  if (isNotApplicable(value)) return `is n/a (${value.na}) but has a threshold`;
  if (threshold.min !== undefined && value < threshold.min)
    return `= ${formatNumber(value)} is below the minimum ${formatNumber(threshold.min)}`;
  if (threshold.max !== undefined && value > threshold.max)
    return `= ${formatNumber(value)} is above the maximum ${formatNumber(threshold.max)}`;
  return undefined;
}

function formatNumber(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(4);
}
