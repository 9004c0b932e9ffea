/**
 * The engine suite's table: engines side by side as columns, one row per figure and history size,
 * issue #8's target in its own column and ✓/✗ on every figure it applies to, then notes.
 */
import type { CellResult } from "../../cell.js";
import { formatCount } from "../../workloads/workload.js";
import { ENGINE_SPEED_TOKEN_BUDGET, type EngineSpeedMetrics } from "./engine-speed-cell.js";
import { type AssembleSlope, assembleSeries } from "./engine-speed-chart.js";
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
      const passThrough = engines.filter((engine) => isPassThrough(engine, results));
      lines.push(...slopeLines(engines, assembleSeries(results).slopes, passThrough));
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
  return [title, renderGrid(lines), ...notes(engines, sizes, results)].join("\n");
}

function sizeOf(result: CellResult): number {
  return result.cell.workload.kind === "synthetic" ? result.cell.workload.messages : 0;
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

/** Compacted without calling the bench's stub: the engine ran a summarizer of its own. */
function usedOwnSummarizer(metrics: EngineSpeedMetrics): boolean {
  return metrics.compaction.compacted && metrics.compaction.summarizerCalls === 0;
}

function rssCell(result: CellResult | undefined): string {
  if (result?.memory === undefined) return result?.error === undefined ? "–" : "error";
  return result.memory.maxRssMb.toFixed(0);
}

/** Every measured cell of `engine` assembled by handing back its input. */
function isPassThrough(engine: string, results: readonly CellResult[]): boolean {
  const measured = results.filter((result) => result.cell.engine === engine && result.metrics !== undefined);
  return (
    measured.length > 0 &&
    measured.every((result) => (result.metrics as EngineSpeedMetrics).turns.passThrough)
  );
}

/**
 * The fitted slopes. A pass-through engine's times are call overhead, timer and GC noise, so its
 * slope is shown without a target mark.
 */
function slopeLines(
  engines: readonly string[],
  slopes: readonly AssembleSlope[],
  passThrough: readonly string[],
): string[][] {
  return (["p50", "p95"] as const).map((figure) => {
    const sizes = slopes.find((slope) => slope.figure === figure)?.sizes ?? [];
    const span = sizes.length < 2 ? "" : `${formatCount(sizes[0] ?? 0)}–${formatCount(sizes.at(-1) ?? 0)}`;
    const target = figure === "p95" ? FLAT_SLOPE_TARGET : undefined;
    return [
      `assemble ${figure} log-log slope`,
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

/** Lines under the table: the legend, how each engine ingested, store files, what did not compact, errors. */
function notes(
  engines: readonly string[],
  sizes: readonly number[],
  results: readonly CellResult[],
): string[] {
  const metricsAt = (engine: string, size: number) =>
    results.find((result) => result.cell.engine === engine && sizeOf(result) === size)?.metrics as
      | EngineSpeedMetrics
      | undefined;
  const perEngine = (describe: (engine: string) => string) => engines.map(describe).join(", ");
  const largest = (engine: string) =>
    [...sizes]
      .reverse()
      .map((size) => metricsAt(engine, size))
      .find((metrics) => metrics !== undefined);
  const lines = [
    "✓ meets, ✗ misses issue #8's target. Timings come from a shared machine: noisy, never gated.",
    `bulk ingest path: ${perEngine((engine) => `${engine} ${largest(engine)?.bulkIngest.path ?? "–"}`)}; ` +
      `per-turn path: ${perEngine((engine) => `${engine} ${largest(engine)?.turns.ingest.path ?? "–"}`)}`,
    `turns measured (${sizes.map(formatCount).join("/")}): ${perEngine(
      (engine) =>
        `${engine} ${sizes.map((size) => String(metricsAt(engine, size)?.turns.assemble.samples ?? "–")).join("/")}`,
    )}`,
  ];
  for (const engine of engines) {
    const metrics = largest(engine);
    if (metrics === undefined) continue;
    if (isPassThrough(engine, results))
      lines.push(
        `${engine} assemble returns the history it is given: its times are call overhead, timer and GC noise`,
      );
    if (metrics.store.bytes > 0)
      lines.push(
        `${engine} store at ${formatCount(metrics.historyMessages)} messages: ${storeFiles(metrics)}`,
      );
    if (!metrics.compaction.compacted)
      lines.push(`${engine} compaction: ${metrics.compaction.reason ?? "no reason given"}`);
  }
  if (
    results.some(
      (result) => result.metrics !== undefined && usedOwnSummarizer(result.metrics as EngineSpeedMetrics),
    )
  ) {
    lines.push(
      "† the engine never called the bench's stub summarizer: the figure includes its own summarizer",
    );
  }
  const failed = results.filter((result) => result.error !== undefined);
  if (failed.length > 0) lines.push("errors:");
  for (const result of failed) lines.push(`  ${result.cell.engine} ${result.workloadName}: ${result.error}`);
  return lines;
}

/** `lossless.db 12.3 MB, lossless.db-wal 4.0 MB` (after bulk ingest), and the raw JSONL beside it. */
function storeFiles(metrics: EngineSpeedMetrics): string {
  const megabytes = (bytes: number) => `${(bytes / 1_000_000).toFixed(1)} MB`;
  const files = Object.entries(metrics.store.files).map(([name, bytes]) => `${name} ${megabytes(bytes)}`);
  return `${files.join(", ")} (raw JSONL ${megabytes(metrics.rawJsonlBytes)}; after the turns ${megabytes(metrics.store.atEnd.bytes)})`;
}

/** Left-aligns the first three columns, right-aligns the engines, with a rule under the header. */
function renderGrid(lines: readonly string[][]): string {
  const widths: number[] = [];
  for (const line of lines) {
    line.forEach((cell, index) => {
      widths[index] = Math.max(widths[index] ?? 0, cell.length);
    });
  }
  const render = (line: readonly string[]) =>
    line
      .map((cell, index) => (index < 3 ? cell.padEnd(widths[index] ?? 0) : cell.padStart(widths[index] ?? 0)))
      .join("  ")
      .trimEnd();
  const [header, ...body] = lines;
  return [
    render(header ?? []),
    widths.map((width) => "-".repeat(width)).join("  "),
    ...body.map(render),
  ].join("\n");
}
