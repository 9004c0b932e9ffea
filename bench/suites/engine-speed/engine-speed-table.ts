/**
 * The engine suite's table: engines side by side as columns, one row per figure and history size,
 * issue #8's target in its own column and ✓/✗ on every figure it applies to, then notes.
 */
import type { CellResult } from "../../cell.js";
import { renderGrid } from "../../render-grid.js";
import { formatCount } from "../../workloads/workload.js";
import { ENGINE_SPEED_TOKEN_BUDGET, type EngineSpeedMetrics } from "./engine-speed-cell.js";
import { type AssembleSlope, assembleSeries } from "./engine-speed-chart.js";
import {
  engineSpeedNotes,
  isPassThrough,
  sizeOf,
  usedOwnSummarizer,
  withoutPrompt,
  withPrompt,
} from "./engine-speed-notes.js";
import { ENGINE_SPEED_ROWS, type EngineSpeedRow, type SpeedTarget } from "./engine-speed-rows.js";

/** Assemble counts as flat against history when its p95 grows at most like messages^0.1. */
export const FLAT_SLOPE_TARGET: SpeedTarget = {
  label: "≤ 0.1 (flat)",
  appliesAt: () => true,
  met: (slope) => slope <= 0.1,
};

/** The table and its notes, for the cells of one engine-suite run (any order). */
export function formatEngineSpeedTable(results: readonly CellResult[]): string {
  const engines = [...new Set(results.map((result) => result.cell.engine))];
  const sizes = [...new Set(results.map(sizeOf))].sort((left, right) => left - right);
  const cellAt = (engine: string, size: number) =>
    results.find((result) => result.cell.engine === engine && sizeOf(result) === size);
  const counters = [...new Set(results.map((result) => result.cell.counter))].join(", ");
  const title =
    `engine suite: issue #8 speed targets, engines called directly through the contract ` +
    `(token counter ${counters}; budget ${ENGINE_SPEED_TOKEN_BUDGET.toLocaleString("en-US")} tokens; stub summarizer)`;
  const lines: string[][] = [["figure", "history", "target", ...engines]];
  for (const row of ENGINE_SPEED_ROWS) {
    sizes.forEach((size, index) => {
      const target = row.target?.appliesAt(size) === true ? row.target : undefined;
      lines.push([
        index === 0 ? row.label : "",
        formatCount(size),
        target?.label ?? "",
        ...engines.map((engine) => figureCell(row, cellAt(engine, size), target)),
      ]);
    });
    if (row.key === "assembleP95Ms") {
      const passThrough = engines.filter((engine) => isPassThrough(engine, results, withPrompt));
      const { slopes } = assembleSeries(results, withPrompt);
      lines.push(...slopeLines(engines, slopes, passThrough, "assemble with prompt", ["p50", "p95"]));
    }
    if (row.key === "assembleWithoutPromptP95Ms") {
      const passThrough = engines.filter((engine) => isPassThrough(engine, results, withoutPrompt));
      const { slopes } = assembleSeries(results, withoutPrompt);
      lines.push(...slopeLines(engines, slopes, passThrough, "assemble without prompt", ["p95"]));
    }
  }
  sizes.forEach((size, index) => {
    lines.push([
      index === 0 ? "peak RSS (MB, kernel maxRSS)" : "",
      formatCount(size),
      "",
      ...engines.map((engine) => rssCell(cellAt(engine, size))),
    ]);
  });
  return [title, renderGrid(lines, 3), ...engineSpeedNotes(engines, sizes, results)].join("\n");
}

function figureCell(
  row: EngineSpeedRow,
  result: CellResult | undefined,
  target: SpeedTarget | undefined,
): string {
  if (result === undefined) return "–";
  if (result.error !== undefined || result.metrics === undefined) return "error";
  const metrics = result.metrics as EngineSpeedMetrics;
  const value = row.value(metrics);
  if (value === undefined) return `n/a (${row.missing?.(metrics) ?? "does not apply"})`;
  const ownSummarizer = row.key === "compactionCpuMsExcludingSummarizer" && usedOwnSummarizer(metrics);
  return `${formatFigure(value, row.display)}${ownSummarizer ? "†" : ""}${mark(value, target)}`;
}

function rssCell(result: CellResult | undefined): string {
  if (result?.memory === undefined) return result?.error === undefined ? "–" : "error";
  return result.memory.maxRssMb.toFixed(0);
}

/**
 * The fitted slopes. A pass-through engine's times are call overhead, timer and GC noise, so its
 * slope is shown without a target mark.
 */
function slopeLines(
  engines: readonly string[],
  slopes: readonly AssembleSlope[],
  passThrough: readonly string[],
  label: string,
  figures: readonly AssembleSlope["figure"][],
): string[][] {
  return figures.map((figure) => {
    const sizes = slopes.find((slope) => slope.figure === figure)?.sizes ?? [];
    const span = sizes.length < 2 ? "" : `${formatCount(sizes[0] ?? 0)}–${formatCount(sizes.at(-1) ?? 0)}`;
    const target = figure === "p95" ? FLAT_SLOPE_TARGET : undefined;
    return [
      `${label} ${figure} log-log slope`,
      span,
      target?.label ?? "",
      ...engines.map((engine) => {
        const slope = slopes.find((candidate) => candidate.engine === engine && candidate.figure === figure);
        if (slope === undefined) return "–";
        if (passThrough.includes(engine)) return `${slope.slope.toFixed(2)} (pass-through)`;
        return `${slope.slope.toFixed(2)}${mark(slope.slope, target)}`;
      }),
    ];
  });
}

function mark(value: number, target: SpeedTarget | undefined): string {
  if (target === undefined) return "";
  return target.met(value) ? " ✓" : " ✗";
}

function formatFigure(value: number, display: EngineSpeedRow["display"]): string {
  switch (display) {
    case "ms":
      if (value < 0.1) return value.toFixed(3);
      if (value < 10) return value.toFixed(2);
      return value < 100 ? value.toFixed(1) : Math.round(value).toLocaleString("en-US");
    case "msPerMessage":
      return value < 1 ? value.toFixed(4) : value.toFixed(2);
    case "rate":
      return Math.round(value).toLocaleString("en-US");
    case "ratio":
      return `${value.toFixed(2)}×`;
  }
}
