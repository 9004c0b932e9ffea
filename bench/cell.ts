/**
 * A bench cell: one suite run on one engine, one token counter and one workload, in a process of
 * its own. The parent (`run.ts`) builds cells, the child (`run-workload.ts`) runs one and prints
 * its `CellResult` as a single marked JSON line on stdout.
 */
import type { RssPeak } from "./metrics/rss-sampler.js";
import type { JudgeSettings } from "./suites/quality/judge/judge.js";
import type { BenchCounterId } from "./token-counters.js";
import type { WorkloadSpec } from "./workloads/workload.js";

/** Knobs shared by every suite; a suite reads the ones it needs. */
export interface BenchSettings {
  /** Turns measured on an open session (the running gateway). */
  warmTurns: number;
  /** Turns measured from a closed transcript (open + build context + turn). */
  coldTurns: number;
  /** Turns run before measuring warm turns (JIT, first context build). */
  warmupTurns: number;
  /** A turn phase stops early once it has spent this long and has `minTurns` samples. */
  phaseBudgetMs: number;
  minTurns: number;
  /** Entries per append during ingest. */
  ingestBatchSize: number;
  /** Raw recent history kept by compaction. */
  keepRecentTokens: number;
  /** CPU the stub summarizer burns per call, standing in for a model's fixed cost. */
  summarizerBusyMs: number;
  piSessionsDir: string;
  /** `--judge`: the model that answers and grades M1 questions (quality suite); absent = none. */
  judge?: JudgeSettings;
}

export interface CellSpec {
  suite: string;
  engine: string;
  counter: BenchCounterId;
  workload: WorkloadSpec;
  settings: BenchSettings;
}

export interface CellResult {
  cell: CellSpec;
  /** Display name of the workload. */
  workloadName: string;
  /** The suite's figures; absent when the cell failed. */
  metrics?: unknown;
  /** Why the cell failed; absent when it ran. */
  error?: string;
  /** Peak memory of the process that ran the cell. */
  memory?: RssPeak;
  durationMs: number;
}

/** Prefix of the one stdout line that carries a child's result. */
export const RESULT_MARKER = "CLEW_BENCH_RESULT ";

export function encodeResultLine(result: CellResult): string {
  return `${RESULT_MARKER}${JSON.stringify(result)}\n`;
}

/** The result in a child's stdout, or undefined when no marked line is there. */
export function decodeResultLine(stdout: string): CellResult | undefined {
  const line = stdout.split("\n").find((candidate) => candidate.startsWith(RESULT_MARKER));
  return line === undefined ? undefined : (JSON.parse(line.slice(RESULT_MARKER.length)) as CellResult);
}
