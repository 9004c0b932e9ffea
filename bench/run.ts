/**
 * `npm run bench`: runs every cell (suite × engine × counter × workload) in its own child process,
 * one after another so cells do not compete for the CPU, prints the tables and writes the JSON and
 * the SVG charts. Exits 1 when a cell failed, 2 for unusable arguments.
 */
import { describeError } from "@clew/core";
import type { CellResult } from "./cell.js";
import { formatLatencySlopes, writeCharts } from "./charts/bench-charts.js";
import { type BenchOptions, buildCells, parseBenchArgs, USAGE } from "./cli-options.js";
import { buildReport, formatTables, writeReport } from "./report.js";
import { runCellInChild } from "./spawn-cell.js";

async function main(): Promise<void> {
  let options: BenchOptions;
  try {
    options = parseBenchArgs(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`${describeError(error)}\n\n${USAGE}\n`);
    process.exitCode = 2;
    return;
  }
  if (options.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const startedAt = new Date();
  const cells = buildCells(options);
  const results: CellResult[] = [];
  for (const [index, cell] of cells.entries()) {
    process.stderr.write(`cell ${index + 1}/${cells.length}\n`);
    results.push(await runCellInChild(cell));
  }
  const report = buildReport(options, results, { startedAt, finishedAt: new Date() });
  process.stdout.write(`\n${formatTables(results)}\n\n`);
  if (report.latencySlopes.length > 0)
    process.stdout.write(`${formatLatencySlopes(report.latencySlopes)}\n\n`);
  const written = await writeReport(report, options.outDir);
  process.stdout.write(`JSON: ${written.join(", ")}\n`);
  const charts = await writeCharts(results, options.outDir, report.startedAt);
  if (charts.length > 0) process.stdout.write(`SVG: ${charts.join(", ")}\n`);
  if (results.some((result) => result.error !== undefined)) process.exitCode = 1;
}

await main();
