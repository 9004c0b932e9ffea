import { InvalidOptionError } from "@clew/core";
import { pipelineSuite } from "./pipeline/pipeline-suite.js";
import type { BenchSuite } from "./suite.js";

/** Every suite by name. A suite's metrics type is its own; the runner treats them as opaque. */
export const BENCH_SUITES: Readonly<Record<string, BenchSuite<unknown>>> = {
  pipeline: pipelineSuite as BenchSuite<unknown>,
};

/** Throws `InvalidOptionError` naming the known suites when `name` is not one of them. */
export function benchSuite(name: string): BenchSuite<unknown> {
  const suite = BENCH_SUITES[name];
  if (suite === undefined)
    throw new InvalidOptionError("--suite", name, Object.keys(BENCH_SUITES).join(", "));
  return suite;
}
