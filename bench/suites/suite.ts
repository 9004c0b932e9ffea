/**
 * The suite seam: a suite measures one cell and says how its figures appear in the table.
 * `pipeline` (speed and memory of the engine pipeline) is the first; a quality suite follows.
 */
import type { CellSpec } from "../cell.js";

/** How a figure is printed. */
export type MetricFormat = "count" | "rate" | "ms" | "seconds" | "mb" | "bytes";

export interface MetricRow<Metrics> {
  /** Stable camelCase name used in the JSON (`warmTurnP50Ms`); the label may change. */
  key: string;
  label: string;
  format: MetricFormat;
  /** Undefined when the figure does not apply to this cell. */
  value(metrics: Metrics): number | undefined;
  /** Whether the slope column (largest over smallest synthetic size) shows this row. */
  slope?: boolean;
}

export interface CellContext {
  /** A temporary Clew home for this cell, removed after it. */
  home: string;
  /** Progress for humans, written to stderr. */
  log(message: string): void;
}

export interface BenchSuite<Metrics> {
  readonly name: string;
  readonly description: string;
  /** Measures one cell. Throws when the cell cannot be measured; the runner records the error. */
  run(cell: CellSpec, context: CellContext): Promise<Metrics>;
  readonly rows: readonly MetricRow<Metrics>[];
}
