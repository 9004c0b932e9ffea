import { InvalidOptionError } from "@clew/core";
import { engineSpeedSuite } from "./engine-speed/engine-speed-suite.js";
import { pipelineSuite } from "./pipeline/pipeline-suite.js";
import { preparationSuite } from "./preparation/preparation-suite.js";
import { qualitySuite } from "./quality/quality-suite.js";
import type { BenchSuite } from "./suite.js";

/** Every suite by name. A suite's metrics type is its own; the runner treats them as opaque. */
export const BENCH_SUITES: Readonly<Record<string, BenchSuite<unknown>>> = {
  pipeline: pipelineSuite as BenchSuite<unknown>,
  quality: qualitySuite as BenchSuite<unknown>,
  engine: engineSpeedSuite as BenchSuite<unknown>,
  preparation: preparationSuite as BenchSuite<unknown>,
};

/** Names the command line accepts besides the suites' own: `speed` is `pipeline`, `all` is every suite. */
export const SUITE_ALIASES: Readonly<Record<string, readonly string[]>> = {
  speed: ["pipeline"],
  all: ["pipeline", "quality", "engine", "preparation"],
};

/** Suite names with aliases expanded, in order, without repeats. Throws like `benchSuite`. */
export function expandSuiteNames(names: readonly string[]): string[] {
  const expanded = names.flatMap((name) => SUITE_ALIASES[name] ?? [name]);
  for (const name of expanded) benchSuite(name);
  return [...new Set(expanded)];
}

/** Throws `InvalidOptionError` naming the known suites when `name` is not one of them. */
export function benchSuite(name: string): BenchSuite<unknown> {
  const suite = BENCH_SUITES[name];
  if (suite === undefined)
    throw new InvalidOptionError(
      "--suite",
      name,
      [...Object.keys(BENCH_SUITES), ...Object.keys(SUITE_ALIASES)].join(", "),
    );
  return suite;
}
