/**
 * The suite seam: a suite measures one cell and says how its figures appear in the table.
 * `pipeline` (speed and memory of the engine pipeline, also called `speed`) and `quality` (what
 * the model sees) are the suites so far.
 */
import type { CellResult, CellSpec } from "../cell.js";
import type { BenchCounterId } from "../token-counters.js";
import type { WorkloadSpec } from "../workloads/workload.js";

/** How a figure is printed. `percent` takes a share (0..1); `decimal` prints up to three decimals. */
export type MetricFormat = "count" | "rate" | "ms" | "seconds" | "mb" | "bytes" | "percent" | "decimal";

export interface MetricRow<Metrics> {
  /** Stable camelCase name used in the JSON (`warmTurnP50Ms`); the label may change. */
  key: string;
  label: string;
  format: MetricFormat;
  /** Undefined when the figure does not apply to this cell. */
  value(metrics: Metrics): number | undefined;
  /** Why `value` is undefined, printed as "n/a (reason)"; without it the table shows "–". */
  missing?(metrics: Metrics): string | undefined;
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
  /**
   * The workloads and counters this suite runs, when it does not take the command line's: the
   * quality suite generates its own workloads and always counts with exact o200k.
   */
  readonly cells?: {
    workloads(options: SuiteCellOptions): WorkloadSpec[];
    counters: readonly BenchCounterId[];
  };
  /**
   * A suite that presents its cells itself (the engine suite: engines as columns, a target
   * column, charts) returns the text printed in place of the generic table and the files it wrote
   * under `output.outDir`. `stamp` is the run's start time, for file names. Throws only when a
   * file cannot be written.
   */
  present?(
    results: readonly CellResult[],
    output: { outDir: string; stamp: string },
  ): Promise<{ text: string; files: string[] }>;
}

/** What a suite with its own workloads may take from the command line. */
export interface SuiteCellOptions {
  quick: boolean;
  /** `--preset`, for suites with presets; undefined when not given. */
  preset: string | undefined;
  /** `--sizes` (or its default): synthetic session sizes in messages. */
  sizes: readonly number[];
}
