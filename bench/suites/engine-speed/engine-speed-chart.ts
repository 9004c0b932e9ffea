/**
 * Assemble latency against history length, per engine: the log-log slopes (0 = flat, 1 = linear
 * in history) and an SVG chart of p50 (solid) and p95 (dashed), both axes logarithmic.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { CellResult } from "../../cell.js";
import { type ChartSeries, lineChartSvg } from "../../charts/line-chart-svg.js";
import { logLogSlope } from "../../metrics/log-log-slope.js";
import type { LatencySummary } from "../../metrics/percentiles.js";
import type { EngineSpeedMetrics } from "./engine-speed-cell.js";

export interface AssembleSlope {
  engine: string;
  figure: "p50" | "p95";
  /** History sizes the slope is fitted over, ascending. */
  sizes: number[];
  /** Exponent of the fitted power law: ms ∝ messages^slope. */
  slope: number;
}

/**
 * Per engine with two sizes or more: its p50 and p95 series and their slopes, of `assemble` with
 * the prompt unless `latency` picks another distribution (the calls without one).
 */
export function assembleSeries(
  results: readonly CellResult[],
  latency: (metrics: EngineSpeedMetrics) => LatencySummary = (metrics) => metrics.turns.assemble,
): {
  series: ChartSeries[];
  slopes: AssembleSlope[];
} {
  const byEngine = new Map<string, [number, EngineSpeedMetrics][]>();
  for (const result of results) {
    if (result.cell.workload.kind !== "synthetic" || result.metrics === undefined) continue;
    const points = byEngine.get(result.cell.engine) ?? [];
    points.push([result.cell.workload.messages, result.metrics as EngineSpeedMetrics]);
    byEngine.set(result.cell.engine, points);
  }
  const series: ChartSeries[] = [];
  const slopes: AssembleSlope[] = [];
  for (const [engine, unsorted] of byEngine) {
    if (unsorted.length < 2) continue;
    const sorted = [...unsorted].sort(([left], [right]) => left - right);
    for (const figure of ["p50", "p95"] as const) {
      const points = sorted.map(
        ([messages, metrics]) =>
          [messages, figure === "p50" ? latency(metrics).p50Ms : latency(metrics).p95Ms] as const,
      );
      series.push({ name: `${engine} ${figure}`, points, group: engine, dashed: figure === "p95" });
      const slope = logLogSlope(points);
      if (slope !== undefined) slopes.push({ engine, figure, sizes: sorted.map(([size]) => size), slope });
    }
  }
  return { series, slopes };
}

/**
 * Writes `engine-assemble-<stamp>.svg` and `engine-assemble-latest.svg` under `outDir` (created
 * when missing) when there is a series to draw; returns the paths written.
 */
export async function writeAssembleChart(
  results: readonly CellResult[],
  outDir: string,
  stamp: string,
): Promise<string[]> {
  const { series } = assembleSeries(results);
  if (series.length === 0) return [];
  const svg = lineChartSvg({
    title: "Engine assemble (with the prompt) latency against history length (128k budget)",
    xLabel: "messages in history",
    yLabel: "ms per assemble",
    xLog: true,
    yLog: true,
    series,
  });
  await mkdir(outDir, { recursive: true });
  const paths = [`engine-assemble-${stamp.replaceAll(":", "-")}.svg`, "engine-assemble-latest.svg"].map(
    (file) => join(outDir, file),
  );
  for (const path of paths) await writeFile(path, svg);
  return paths;
}
