/**
 * The bench's output: one table per suite on stdout (cells side by side, then the slope column),
 * and one JSON document written to `<out>/<timestamp>.json` and `<out>/latest.json`.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { cpus, totalmem } from "node:os";
import { join } from "node:path";
import type { CellResult } from "./cell.js";
import { type LatencySlope, latencySeries } from "./charts/bench-charts.js";
import type { BenchOptions } from "./cli-options.js";
import { renderGrid } from "./render-grid.js";
import { computeSlopes, groupKey, type Slope, type SlopeGroup, slopeGroups, slopeOf } from "./slopes.js";
import type { MetricFormat } from "./suites/suite.js";
import { tableRows } from "./table-rows.js";
import { formatCount } from "./workloads/workload.js";

export interface BenchReport {
  schemaVersion: 1;
  startedAt: string;
  finishedAt: string;
  environment: {
    node: string;
    platform: string;
    arch: string;
    cpus: number;
    cpuModel: string;
    totalMemoryMb: number;
  };
  options: Omit<BenchOptions, "help">;
  cells: CellResult[];
  slopes: Slope[];
  /** M9: log-log slope of warm-turn latency against history length, per engine and counter. */
  latencySlopes: LatencySlope[];
}

export function buildReport(
  options: BenchOptions,
  cells: CellResult[],
  times: { startedAt: Date; finishedAt: Date },
): BenchReport {
  const { help: _help, ...reported } = options;
  return {
    schemaVersion: 1,
    startedAt: times.startedAt.toISOString(),
    finishedAt: times.finishedAt.toISOString(),
    environment: {
      node: process.version,
      platform: process.platform,
      arch: process.arch,
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model ?? "unknown",
      totalMemoryMb: Math.round(totalmem() / 1_000_000),
    },
    options: reported,
    cells,
    slopes: computeSlopes(cells, tableRows),
    latencySlopes: latencySeries(cells).slopes,
  };
}

/** Writes the report as `<timestamp>.json` and `latest.json` under `outDir`; returns both paths. */
export async function writeReport(report: BenchReport, outDir: string): Promise<string[]> {
  await mkdir(outDir, { recursive: true });
  const text = `${JSON.stringify(report, null, 2)}\n`;
  const stamped = join(outDir, `${report.startedAt.replaceAll(":", "-")}.json`);
  const latest = join(outDir, "latest.json");
  await writeFile(stamped, text);
  await writeFile(latest, text);
  return [stamped, latest];
}

/** One table per suite, cells in run order, then one slope column per engine and counter. */
export function formatTables(cells: readonly CellResult[]): string {
  const suites = [...new Set(cells.map((result) => result.cell.suite))];
  return suites
    .map((suite) =>
      formatSuiteTable(
        suite,
        cells.filter((result) => result.cell.suite === suite),
      ),
    )
    .join("\n\n");
}

function formatSuiteTable(suite: string, cells: readonly CellResult[]): string {
  const rows = tableRows(suite);
  const groups = slopeGroups(cells);
  const qualify = new Set(cells.map(groupKey)).size > 1;
  // One workload per engine (the quality suite): the engine is the column's name.
  const byEngine = qualify && new Set(cells.map((result) => result.workloadName)).size === 1;
  const header = [
    byEngine ? `${suite} suite (${cells[0]?.workloadName})` : `${suite} suite`,
    ...cells.map((result) => (byEngine ? result.cell.engine : columnTitle(result, qualify))),
    ...groups.map((group) => slopeTitle(group, qualify)),
  ];
  const body = rows.map((row) => [
    row.label,
    ...cells.map((result) =>
      result.error !== undefined ? "error" : formatCell(row.value(result), row.format, row.missing?.(result)),
    ),
    ...groups.map((group) => formatRatio(slopeOf(row, group))),
  ]);
  const failures = cells
    .filter((result) => result.error !== undefined)
    .map((result) => `  ${columnTitle(result, true)}: ${result.error}`);
  return [renderGrid([header, ...body]), ...(failures.length > 0 ? ["errors:", ...failures] : [])].join("\n");
}

function columnTitle(result: CellResult, qualify: boolean): string {
  return qualify
    ? `${result.workloadName} [${result.cell.engine}/${result.cell.counter}]`
    : result.workloadName;
}

function slopeTitle(group: SlopeGroup, qualify: boolean): string {
  const sizes = (result: CellResult) =>
    result.cell.workload.kind === "synthetic" ? formatCount(result.cell.workload.messages) : "?";
  const title = `× ${sizes(group.to)}/${sizes(group.from)}`;
  return qualify ? `${title} [${group.engine}/${group.counter}]` : title;
}

/** A figure, or "n/a (reason)" when the suite says why there is none. */
export function formatCell(value: number | undefined, format: MetricFormat, missing?: string): string {
  if (value === undefined && missing !== undefined) return `n/a (${missing})`;
  return formatValue(value, format);
}

/** Figures as people read them: separators for counts, fewer decimals as values grow. */
export function formatValue(value: number | undefined, format: MetricFormat): string {
  if (value === undefined || !Number.isFinite(value)) return "–";
  switch (format) {
    case "percent":
      return `${(value * 100).toFixed(1)}%`;
    case "decimal":
      return value.toFixed(Math.abs(value) >= 100 ? 0 : 3);
    case "count":
    case "rate":
    case "bytes":
      return Math.round(value).toLocaleString("en-US");
    case "ms":
      return value < 10
        ? value.toFixed(2)
        : value < 100
          ? value.toFixed(1)
          : Math.round(value).toLocaleString("en-US");
    case "seconds":
      return value.toFixed(1);
    case "mb":
      return value.toFixed(0);
  }
}

function formatRatio(ratio: number | undefined): string {
  return ratio === undefined ? "" : `${ratio.toFixed(2)}×`;
}
