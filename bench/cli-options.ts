/** `npm run bench` arguments: parsed with `node:util` parseArgs, validated, turned into cells. */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { InvalidOptionError, resolveClewHome } from "@clew/core";
import type { BenchSettings, CellSpec } from "./cell.js";
import { benchEngine } from "./engines.js";
import { benchSuite, expandSuiteNames } from "./suites/index.js";
import type { JudgeSettings } from "./suites/quality/judge/judge.js";
import { qualityPreset } from "./suites/quality/presets.js";
import { BENCH_COUNTERS, type BenchCounterId, isBenchCounterId } from "./token-counters.js";
import { piSessionsDir } from "./workloads/pi-sessions.js";
import { defaultWorkloads } from "./workloads/workload.js";

export interface BenchOptions {
  suites: string[];
  engines: string[];
  counters: BenchCounterId[];
  /** Synthetic session sizes, in messages. */
  sizes: number[];
  /** Whether the two recorded pi sessions run as workloads of their own. */
  includePi: boolean;
  /** Results folder: `<timestamp>.json` and `latest.json` are written there. */
  outDir: string;
  /** `--preset` of the quality suite (full, gate, tiny); undefined picks full (gate with --quick). */
  preset: string | undefined;
  quick: boolean;
  help: boolean;
  settings: BenchSettings;
}

export const USAGE = `Usage: npm run bench -- [options]

  --suite <names>       suites to run, comma-separated: quality, speed (= pipeline), engine
                        (issue #8 targets per engine, --sizes only), all (default: pipeline)
  --engine <ids>        context engines, comma-separated: legacy, recency, bm25 (default: legacy)
  --preset <id>         quality workload size: full, gate, tiny (default full; gate with --quick)
  --judge <provider/model>
                        quality: a model answers each M1 question from the engine's request and
                        is graded against the expected answer (off by default; never gated); the
                        model is resolved from clew.json in CLEW_HOME (default ~/.clew)
  --judge-questions <n> questions judged per budget, spread over the list (default all)
  --counter <ids>       token counters: ${BENCH_COUNTERS.join(", ")} (default: chars)
  --sizes <counts>      synthetic session sizes in messages, e.g. 10k,50k (default: 10k,50k)
  --skip-pi             leave out the two recorded pi sessions
  --turns <n>           warm turns to measure at most (default 50; --quick 8)
  --cold-turns <n>      cold turns to measure at most (default 20; --quick 4)
                        (a phase stops after 20 s once it has 8 samples; --quick: 3 s, 3)
  --out <dir>           results folder (default: bench/results)
  --quick               tiny sizes and few turns, for a fast sanity run
  --help                this text

Pi sessions are read in place from CLEW_PI_SESSIONS_DIR (default ../shared/data/pi-sessions).
The quality suite generates its workloads and counts tokens with o200k; --counter, --sizes and
--skip-pi apply to the speed suite. For M9 (latency against history) run
--suite speed --sizes 1k,5k,10k,25k,50k: the log-log slope and an SVG chart are written.`;

// A turn phase stops at its budget once it has `minTurns` samples: at 50k messages a cold turn
// takes seconds, and the whole default run must stay within a few minutes on two cores.
const FULL_DEFAULTS = {
  sizes: [10_000, 50_000],
  warmTurns: 50,
  coldTurns: 20,
  warmupTurns: 3,
  phaseBudgetMs: 20_000,
  minTurns: 8,
};
const QUICK_DEFAULTS = {
  sizes: [300, 1_500],
  warmTurns: 8,
  coldTurns: 4,
  warmupTurns: 1,
  phaseBudgetMs: 3_000,
  minTurns: 3,
};

/**
 * Parses `argv` (without the node and script paths). Throws `InvalidOptionError` naming the
 * option for an unknown suite, engine or counter, or a count that is not a whole number ≥ 1;
 * unknown flags throw parseArgs' own `TypeError`.
 */
export function parseBenchArgs(
  argv: readonly string[],
  environment: NodeJS.ProcessEnv = process.env,
): BenchOptions {
  const { values } = parseArgs({
    args: [...argv],
    strict: true,
    allowPositionals: false,
    options: {
      suite: { type: "string" },
      engine: { type: "string" },
      counter: { type: "string" },
      sizes: { type: "string" },
      "skip-pi": { type: "boolean" },
      turns: { type: "string" },
      "cold-turns": { type: "string" },
      out: { type: "string" },
      preset: { type: "string" },
      judge: { type: "string" },
      "judge-questions": { type: "string" },
      quick: { type: "boolean" },
      help: { type: "boolean" },
    },
  });
  const quick = values.quick === true;
  const defaults = quick ? QUICK_DEFAULTS : FULL_DEFAULTS;
  const suites = expandSuiteNames(listOf(values.suite, "pipeline"));
  if (values.preset !== undefined) qualityPreset(values.preset);
  const engines = listOf(values.engine, "legacy");
  for (const engine of engines) benchEngine(engine);
  const judge = parseJudge(values.judge, values["judge-questions"], environment);
  return {
    suites,
    engines,
    counters: listOf(values.counter, "chars").map(parseCounter),
    sizes:
      values.sizes === undefined
        ? defaults.sizes
        : listOf(values.sizes, "").map((size) => parseCount("--sizes", size)),
    includePi: values["skip-pi"] !== true,
    outDir: values.out ?? join(import.meta.dirname, "results"),
    preset: values.preset,
    quick,
    help: values.help === true,
    settings: {
      warmTurns: values.turns === undefined ? defaults.warmTurns : parseCount("--turns", values.turns),
      coldTurns:
        values["cold-turns"] === undefined
          ? defaults.coldTurns
          : parseCount("--cold-turns", values["cold-turns"]),
      warmupTurns: defaults.warmupTurns,
      phaseBudgetMs: defaults.phaseBudgetMs,
      minTurns: defaults.minTurns,
      ingestBatchSize: 500,
      keepRecentTokens: 20_000,
      summarizerBusyMs: 25,
      piSessionsDir: piSessionsDir(environment),
      ...(judge === undefined ? {} : { judge }),
    },
  };
}

/**
 * `--judge` and `--judge-questions`. Throws `InvalidOptionError` for a model that is not
 * `provider/model-id`, or `--judge-questions` without `--judge` or not a whole number ≥ 1.
 */
function parseJudge(
  model: string | undefined,
  questions: string | undefined,
  environment: NodeJS.ProcessEnv,
): JudgeSettings | undefined {
  if (model === undefined) {
    if (questions !== undefined) throw new InvalidOptionError("--judge-questions", questions, "--judge too");
    return undefined;
  }
  // The shape only: the cell resolves the model (and names what is missing) before it runs.
  if (!/^[^/\s]+\/\S+$/.test(model))
    throw new InvalidOptionError("--judge", model, "provider/model-id, e.g. openai/gpt-4o-mini");
  return {
    model,
    clewHome: resolveClewHome(environment),
    ...(questions === undefined ? {} : { questions: parseCount("--judge-questions", questions) }),
  };
}

/**
 * Every combination of suite, engine, counter and workload; workloads vary fastest. A suite with
 * its own workloads and counters (quality) uses those instead of the command line's.
 */
export function buildCells(options: BenchOptions): CellSpec[] {
  const shared = defaultWorkloads(options.sizes).filter((spec) => options.includePi || spec.kind !== "pi");
  return options.suites.flatMap((suite) => {
    const own = benchSuite(suite).cells;
    const workloads =
      own?.workloads({ quick: options.quick, preset: options.preset, sizes: options.sizes }) ?? shared;
    const counters = own?.counters ?? options.counters;
    return options.engines.flatMap((engine) =>
      counters.flatMap((counter) =>
        workloads.map(
          (workload): CellSpec => ({ suite, engine, counter, workload, settings: options.settings }),
        ),
      ),
    );
  });
}

function listOf(raw: string | undefined, fallback: string): string[] {
  return (raw ?? fallback)
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item.length > 0);
}

function parseCounter(raw: string): BenchCounterId {
  if (!isBenchCounterId(raw)) throw new InvalidOptionError("--counter", raw, BENCH_COUNTERS.join(", "));
  return raw;
}

/** `500`, `10k`, `1.5k`, `2M` → a whole number ≥ 1. */
export function parseCount(option: string, raw: string): number {
  const match = /^(\d+(?:\.\d+)?)([kKmM]?)$/.exec(raw.trim());
  const scale = match?.[2]?.toLowerCase() === "k" ? 1_000 : match?.[2]?.toLowerCase() === "m" ? 1_000_000 : 1;
  // toPrecision drops float noise: 1.1 × 1000 is 1100.0000000000002.
  const count = match === null ? Number.NaN : Number((Number(match[1]) * scale).toPrecision(12));
  if (!Number.isInteger(count) || count < 1) {
    throw new InvalidOptionError(option, raw, "a whole number ≥ 1, optionally with a k or M suffix");
  }
  return count;
}
