/** One row of the quality table: a stable key (JSON, gate thresholds), a label and its figure. */
import type { MetricFormat } from "../suite.js";
import type { Figure } from "./metrics/figure.js";
import type { QualityMetrics } from "./quality-suite.js";

export interface FigureRow {
  key: string;
  label: string;
  format: MetricFormat;
  /** Timings vary by machine: never gated. */
  timing?: boolean;
  /** Model-judged (`--judge`): depends on a model outside the suite, so never gated either. */
  judged?: boolean;
  figure(metrics: QualityMetrics): Figure;
}
