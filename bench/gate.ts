/**
 * `npm run bench:gate`: runs the quality suite's deterministic metrics on the small `gate` workload
 * for every engine named in `bench/gate-thresholds.json` (each in its own process) and fails when
 * an engine is below a threshold. Timings are measured but never gated.
 *
 * Exit codes: 0 every threshold holds; 1 a threshold failed or a cell failed; 2 unusable
 * arguments or thresholds file.
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { describeError } from "@clew/core";
import type { CellResult, CellSpec } from "./cell.js";
import { parseBenchArgs } from "./cli-options.js";
import { benchEngine, WORD_VECTORS_VARIABLE } from "./engines.js";
import { checkGate, type EngineFigures } from "./gate/check-gate.js";
import { type GateThresholds, loadGateThresholds } from "./gate/gate-thresholds.js";
import { formatTables } from "./report.js";
import { runCellInChild } from "./spawn-cell.js";
import { qualityPreset } from "./suites/quality/presets.js";
import { QUALITY_ROWS, qualityFigures, UNGATED_ROW_KEYS } from "./suites/quality/quality-rows.js";
import type { QualityMetrics } from "./suites/quality/quality-suite.js";

const DEFAULT_THRESHOLDS = join(import.meta.dirname, "gate-thresholds.json");

const USAGE = `Usage: npm run bench:gate -- [--thresholds <file>] [--engine <ids>] [--preset <id>]

Runs the quality suite on the gate workload for each engine in the thresholds file
(default bench/gate-thresholds.json) and exits 1 when an engine is below a threshold.`;

interface GateOptions {
  thresholdsPath: string;
  engines: string[] | undefined;
  preset: string | undefined;
}

async function main(): Promise<void> {
  const started = performance.now();
  let options: GateOptions;
  let thresholds: GateThresholds;
  try {
    options = parseGateArgs(process.argv.slice(2));
    thresholds = await loadGateThresholds(options.thresholdsPath, {
      knownKeys: new Set(QUALITY_ROWS.map((row) => row.key)),
      ungatedKeys: UNGATED_ROW_KEYS,
    });
  } catch (error) {
    process.stderr.write(`bench:gate: ${describeError(error)}\n\n${USAGE}\n`);
    process.exitCode = 2;
    return;
  }
  const preset = options.preset ?? thresholds.preset;
  const engines = options.engines ?? Object.keys(thresholds.engines);
  // The thresholds of lossless were set with the shipped word vectors: a table named in the
  // environment would be measured against them without saying so. The cells inherit this.
  if (process.env[WORD_VECTORS_VARIABLE] !== undefined) {
    process.stderr.write(`gate: ignoring ${WORD_VECTORS_VARIABLE}; lossless uses the shipped word vectors\n`);
    delete process.env[WORD_VECTORS_VARIABLE];
  }
  const results: CellResult[] = [];
  for (const engine of engines) {
    process.stderr.write(`gate: ${engine} on preset ${preset}\n`);
    results.push(await runCellInChild(gateCell(engine, preset)));
  }
  process.stdout.write(`\n${formatTables(results)}\n\n`);
  const verdict = checkGate(
    thresholdsOf(thresholds, engines),
    figuresByEngine(results),
    options.thresholdsPath,
  );
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  if (verdict.failures.length === 0) {
    process.stdout.write(`bench:gate passed: ${verdict.checked} thresholds held (${seconds} s)\n`);
    return;
  }
  for (const failure of verdict.failures) process.stdout.write(`FAIL ${failure.message}\n`);
  process.stdout.write(
    `bench:gate failed: ${verdict.failures.length} of ${verdict.checked} thresholds (${seconds} s)\n`,
  );
  process.exitCode = 1;
}

function parseGateArgs(argv: string[]): GateOptions {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: { thresholds: { type: "string" }, engine: { type: "string" }, preset: { type: "string" } },
  });
  const engines = values.engine
    ?.split(",")
    .map((engine) => engine.trim())
    .filter((engine) => engine.length > 0);
  for (const engine of engines ?? []) benchEngine(engine);
  if (values.preset !== undefined) qualityPreset(values.preset);
  return { thresholdsPath: values.thresholds ?? DEFAULT_THRESHOLDS, engines, preset: values.preset };
}

function gateCell(engine: string, preset: string): CellSpec {
  return {
    suite: "quality",
    engine,
    counter: "o200k-cached",
    workload: { kind: "quality", preset },
    settings: parseBenchArgs([]).settings,
  };
}

/** The thresholds of the engines that ran: `--engine` checks only those it names. */
function thresholdsOf(thresholds: GateThresholds, engines: readonly string[]): GateThresholds {
  const selected = Object.entries(thresholds.engines).filter(([engine]) => engines.includes(engine));
  return { ...thresholds, engines: Object.fromEntries(selected) };
}

function figuresByEngine(results: readonly CellResult[]): Record<string, EngineFigures> {
  const figures: Record<string, EngineFigures> = {};
  for (const result of results) {
    figures[result.cell.engine] =
      result.error !== undefined || result.metrics === undefined
        ? { error: result.error ?? "no metrics" }
        : { figures: qualityFigures(result.metrics as QualityMetrics) };
  }
  return figures;
}

await main();
