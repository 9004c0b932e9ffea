/**
 * The rows of a suite's table: the suite's own rows, read from each cell's metrics, then the rows
 * every suite shares (memory, cell time).
 */
import type { CellResult } from "./cell.js";
import { benchSuite } from "./suites/index.js";
import type { MetricFormat } from "./suites/suite.js";

export interface TableRow {
  key: string;
  label: string;
  format: MetricFormat;
  slope?: boolean;
  value(result: CellResult): number | undefined;
  /** Why the figure does not apply to this cell, when it does not. */
  missing?(result: CellResult): string | undefined;
}

const SHARED_ROWS: readonly TableRow[] = [
  {
    key: "maxRssMb",
    label: "peak RSS (MB, kernel maxRSS)",
    format: "mb",
    slope: true,
    value: (result) => result.memory?.maxRssMb,
  },
  {
    key: "polledPeakRssMb",
    label: "peak RSS (MB, polled)",
    format: "mb",
    value: (result) => result.memory?.polledPeakMb,
  },
  {
    key: "cellSeconds",
    label: "cell time (s)",
    format: "seconds",
    value: (result) => result.durationMs / 1000,
  },
];

/** Throws `InvalidOptionError` for an unknown suite. */
export function tableRows(suiteName: string): TableRow[] {
  const suiteRows = benchSuite(suiteName).rows.map(
    (row): TableRow => ({
      key: row.key,
      label: row.label,
      format: row.format,
      ...(row.slope === undefined ? {} : { slope: row.slope }),
      value: (result) => (result.metrics === undefined ? undefined : row.value(result.metrics)),
      missing: (result) => (result.metrics === undefined ? undefined : row.missing?.(result.metrics)),
    }),
  );
  return [...suiteRows, ...SHARED_ROWS];
}
