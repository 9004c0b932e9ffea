/**
 * The charts a run writes next to its JSON: per-turn latency against history length (speed suite,
 * synthetic sizes, log-log, with the fitted slope: M9) and needle survival against forced
 * compactions (quality suite, M4).
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { CellResult } from "../cell.js";
import { logLogSlope } from "../metrics/log-log-slope.js";
import type { PipelineMetrics } from "../suites/pipeline/pipeline-suite.js";
import type { QualityMetrics } from "../suites/quality/quality-suite.js";
import { type ChartSeries, lineChartSvg } from "./line-chart-svg.js";

export interface LatencySlope {
  engine: string;
  counter: string;
  figure: "warm turn p50" | "warm turn p95";
  sizes: number[];
  /** Exponent of the fitted power law: ms ∝ messages^slope. */
  slope: number;
}

/** Warm-turn latency series and their log-log slopes, per engine and counter (two sizes or more). */
export function latencySeries(results: readonly CellResult[]): {
  series: ChartSeries[];
  slopes: LatencySlope[];
} {
  const groups = new Map<string, { engine: string; counter: string; points: [number, PipelineMetrics][] }>();
  for (const result of results) {
    if (
      result.cell.suite !== "pipeline" ||
      result.cell.workload.kind !== "synthetic" ||
      result.metrics === undefined
    )
      continue;
    const key = `${result.cell.engine}/${result.cell.counter}`;
    const group = groups.get(key) ?? { engine: result.cell.engine, counter: result.cell.counter, points: [] };
    group.points.push([result.cell.workload.messages, result.metrics as PipelineMetrics]);
    groups.set(key, group);
  }
  const series: ChartSeries[] = [];
  const slopes: LatencySlope[] = [];
  const qualify = groups.size > 1 && new Set([...groups.values()].map((group) => group.counter)).size > 1;
  for (const group of groups.values()) {
    if (group.points.length < 2) continue;
    const sorted = [...group.points].sort(([left], [right]) => left - right);
    const name = qualify ? `${group.engine}/${group.counter}` : group.engine;
    for (const [figure, pick] of [
      ["warm turn p50", (metrics: PipelineMetrics) => metrics.warmTurn.p50Ms],
      ["warm turn p95", (metrics: PipelineMetrics) => metrics.warmTurn.p95Ms],
    ] as const) {
      const points = sorted.map(([messages, metrics]) => [messages, pick(metrics)] as const);
      series.push({
        name: `${name} ${figure.slice(-3)}`,
        points,
        group: name,
        dashed: figure.endsWith("p95"),
      });
      const slope = logLogSlope(points);
      if (slope !== undefined)
        slopes.push({
          engine: group.engine,
          counter: group.counter,
          figure,
          sizes: sorted.map(([size]) => size),
          slope,
        });
    }
  }
  return { series, slopes };
}

/** Needle code in context (raw or summary) per forced compaction level, per engine. */
export function needleSurvivalSeries(results: readonly CellResult[]): ChartSeries[] {
  return results
    .filter((result) => result.cell.suite === "quality" && result.metrics !== undefined)
    .map((result) => ({
      name: result.cell.engine,
      points: (result.metrics as QualityMetrics).needles.levels.map(
        (level) => [level.level, level.codeInContext * 100] as const,
      ),
    }));
}

/** One line per slope, for under the tables. */
export function formatLatencySlopes(slopes: readonly LatencySlope[]): string {
  return slopes
    .map(
      (slope) =>
        `M9 ${slope.figure} log-log slope [${slope.engine}/${slope.counter}, ${slope.sizes.join("/")} messages]: ${slope.slope.toFixed(2)}`,
    )
    .join("\n");
}

/** Writes the charts that have data as `<name>-<stamp>.svg` and `<name>-latest.svg`; returns the paths. */
export async function writeCharts(
  results: readonly CellResult[],
  outDir: string,
  stamp: string,
): Promise<string[]> {
  const written: string[] = [];
  const write = async (name: string, svg: string) => {
    for (const file of [`${name}-${stamp.replaceAll(":", "-")}.svg`, `${name}-latest.svg`]) {
      await writeFile(join(outDir, file), svg);
      written.push(join(outDir, file));
    }
  };
  const latency = latencySeries(results);
  if (latency.series.length > 0) {
    await write(
      "latency",
      lineChartSvg({
        title: "Warm turn latency against history length",
        xLabel: "messages in history",
        yLabel: "ms per turn",
        xLog: true,
        yLog: true,
        series: latency.series,
      }),
    );
  }
  const survival = needleSurvivalSeries(results);
  if (survival.length > 0) {
    await write(
      "needle-survival",
      lineChartSvg({
        title: "Needle codes in context after N forced compactions",
        xLabel: "forced compactions (N)",
        yLabel: "% of needles",
        series: survival,
      }),
    );
  }
  return written;
}
