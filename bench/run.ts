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
import { benchSuite } from "./suites/index.js";

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
  const generic = results.filter((result) => benchSuite(result.cell.suite).present === undefined);
  if (generic.length > 0) process.stdout.write(`\n${formatTables(generic)}\n\n`);
  const presented = await presentSuites(options, results, report.startedAt);
  if (report.latencySlopes.length > 0)
    process.stdout.write(`${formatLatencySlopes(report.latencySlopes)}\n\n`);
  const written = await writeReport(report, options.outDir);
  process.stdout.write(`JSON: ${written.join(", ")}\n`);
  const charts = await writeCharts(results, options.outDir, report.startedAt);
  charts.push(...presented);
  if (charts.length > 0) process.stdout.write(`SVG: ${charts.join(", ")}\n`);
  if (results.some((result) => result.error !== undefined)) process.exitCode = 1;
}

/** Prints the table of each suite that presents itself; returns the files they wrote. */
async function presentSuites(options: BenchOptions, results: CellResult[], stamp: string): Promise<string[]> {
  const files: string[] = [];
  for (const suite of options.suites) {
    const present = benchSuite(suite).present;
    if (present === undefined) continue;
    const own = results.filter((result) => result.cell.suite === suite);
    const shown = await present(own, { outDir: options.outDir, stamp });
    process.stdout.write(`\n${shown.text}\n\n`);
    files.push(...shown.files);
  }
  return files;
}

await main();
