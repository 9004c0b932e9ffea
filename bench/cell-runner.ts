import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describeError } from "@clew/core";
import type { CellResult, CellSpec } from "./cell.js";
import { RssSampler } from "./metrics/rss-sampler.js";
import { benchSuite } from "./suites/index.js";
import { workloadName } from "./workloads/workload.js";

export interface RunCellOptions {
  /** Where progress lines go; default stderr. */
  log?: (message: string) => void;
  /** Parent of the cell's temporary Clew home; default `os.tmpdir()`. */
  tempRoot?: string;
}

/**
 * Runs one cell in this process, in a temporary Clew home that is removed afterwards, sampling
 * RSS throughout. Never throws for a failing cell: the error is in the result. Memory figures
 * describe the whole process, so they mean something only when the process ran nothing else.
 */
export async function runCell(cell: CellSpec, options: RunCellOptions = {}): Promise<CellResult> {
  const name = workloadName(cell.workload);
  const prefix = `[${cell.suite}/${cell.engine}/${cell.counter}/${name}]`;
  const write = options.log ?? ((message: string) => process.stderr.write(`${message}\n`));
  const log = (message: string) => write(`${prefix} ${message}`);
  const sampler = new RssSampler();
  sampler.start();
  const started = performance.now();
  const home = await mkdtemp(join(options.tempRoot ?? tmpdir(), "clew-bench-"));
  const result: CellResult = { cell, workloadName: name, durationMs: 0 };
  try {
    result.metrics = await benchSuite(cell.suite).run(cell, { home, log });
  } catch (error) {
    result.error = describeError(error);
    log(`failed: ${result.error}`);
  } finally {
    result.memory = sampler.stop();
    result.durationMs = performance.now() - started;
    await rm(home, { recursive: true, force: true });
  }
  return result;
}
