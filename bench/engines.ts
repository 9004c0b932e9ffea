/**
 * Engines a cell can run. Each sets up its own registry and the config that selects it, so cells
 * share nothing, and may expose recall tools for the quality suite (`recall-adapter.ts`) and, for
 * engines with a store of their own, its figures (`engine-stats.ts`). The tables put them side by
 * side.
 */

import {
  type AgentMessage,
  type ClewConfig,
  type ContextEngineRegistry,
  charEstimateTokenCounter,
  createContextEngineRegistry,
  InvalidOptionError,
  type Summarizer,
  type TokenCounter,
  withTokenCache,
} from "@clew/core";
import { isRecalledContext } from "@clew/engine-lossless";
import { BM25_ENGINE_ID, Bm25Engine } from "./baselines/bm25-engine.js";
import { RECENCY_ENGINE_ID, RecencyEngine } from "./baselines/recency-engine.js";
import type { BenchEngineStatsHook } from "./engine-stats.js";
import { LOSSLESS_ENGINE_ID, losslessRecall, losslessSetup, losslessStats } from "./lossless-engine.js";
import type { BenchEngineTools } from "./recall-adapter.js";

export interface BenchEngineSetupOptions {
  /** The counter an engine budgets with; the quality suite passes its exact o200k counter. */
  counter?: TokenCounter;
  /** A folder (temporary, per cell) for engines that keep state on disk. */
  stateDir?: string;
  /** The suite's deterministic summarizer, for engines that summarize on their own. */
  summarizer?: Summarizer;
}

export interface BenchEngineSetup {
  registry: ContextEngineRegistry;
  /** Selects the engine in `plugins.slots.contextEngine`. */
  config: ClewConfig;
  tools?: BenchEngineTools;
  /**
   * For engines that keep their own store: what it holds and costs (`engine-stats.ts`). Its
   * presence is what tells the suite an engine has a store to measure.
   */
  stats?: BenchEngineStatsHook;
  /**
   * Messages the engine adds to one request only and never repeats in the next (query-aware
   * evidence placed after the stable prefix). M8 reports stability with and without them.
   */
  requestOnly?: (message: AgentMessage) => boolean;
}

export interface BenchEngine {
  id: string;
  /** The context engine's own id (`info.id`) when the bench runs it under another: a configured variant. */
  engineInfoId?: string;
  description: string;
  /** A fresh registry holding the engine; call once per host. */
  setup(options?: BenchEngineSetupOptions): BenchEngineSetup;
}

const BASELINE_OWNER = "test:bench-baseline";

const legacy: BenchEngine = {
  id: "legacy",
  description: "built-in legacy engine: pass-through assemble, runtime summary compaction",
  setup: () => ({
    registry: createContextEngineRegistry(),
    config: { plugins: { slots: { contextEngine: "legacy" } } },
  }),
};

const recency: BenchEngine = {
  id: RECENCY_ENGINE_ID,
  description: "baseline: the newest whole tool groups that fit the budget; never compacts",
  setup: (options = {}) => {
    const engine = new RecencyEngine(options.counter ?? withTokenCache(charEstimateTokenCounter));
    return baselineSetup(RECENCY_ENGINE_ID, () => engine);
  },
};

const bm25: BenchEngine = {
  id: BM25_ENGINE_ID,
  description: "baseline: BM25 top turns for the prompt that fit the budget; BM25 recall over messages",
  setup: (options = {}) => {
    const engine = new Bm25Engine(options.counter ?? withTokenCache(charEstimateTokenCounter));
    return {
      ...baselineSetup(BM25_ENGINE_ID, () => engine),
      tools: { recall: (session) => engine.recall(session.sessionId) },
    };
  },
};

function baselineSetup(id: string, factory: () => RecencyEngine | Bm25Engine): BenchEngineSetup {
  const registry = createContextEngineRegistry();
  registry.registerContextEngine(id, factory, { owner: BASELINE_OWNER });
  return { registry, config: { plugins: { slots: { contextEngine: id } } } };
}

/** The variable naming a word-vector file for `lossless` instead of the shipped table. */
export const WORD_VECTORS_VARIABLE = "CLEW_WORD_VECTORS";

const lossless: BenchEngine = {
  id: LOSSLESS_ENGINE_ID,
  description: `lossless (#8) as it ships: SQLite store, summary DAG with anchors, exact-budget assembly, recall tools, search by meaning over the shipped word vectors (or the file named by ${WORD_VECTORS_VARIABLE})`,
  setup: (options = {}) => {
    const wordVectors = process.env[WORD_VECTORS_VARIABLE] || undefined;
    return losslessBenchSetup(
      LOSSLESS_ENGINE_ID,
      losslessSetup({ ...options, ...(wordVectors === undefined ? {} : { wordVectors }) }),
    );
  },
};

const LOSSLESS_WORDS_ID = "lossless-words";

const losslessWords: BenchEngine = {
  id: LOSSLESS_WORDS_ID,
  engineInfoId: LOSSLESS_ENGINE_ID,
  description: "lossless with words alone (`wordVectors: false`): no search by meaning",
  setup: (options = {}) =>
    losslessBenchSetup(
      LOSSLESS_WORDS_ID,
      losslessSetup({ ...options, wordVectors: false, engineId: LOSSLESS_WORDS_ID }),
    ),
};

function losslessBenchSetup(
  id: string,
  { registry, engine }: ReturnType<typeof losslessSetup>,
): BenchEngineSetup {
  return {
    registry,
    config: { plugins: { slots: { contextEngine: id } } },
    tools: { recall: (session) => losslessRecall(engine(), session.sessionId) },
    stats: (sessionId) => losslessStats(engine(), sessionId),
    requestOnly: isRecalledContext,
  };
}

export const BENCH_ENGINES: Readonly<Record<string, BenchEngine>> = {
  legacy,
  recency,
  bm25,
  lossless,
  "lossless-words": losslessWords,
};

/** Throws `InvalidOptionError` naming the known engines when `id` is not one of them. */
export function benchEngine(id: string): BenchEngine {
  const engine = BENCH_ENGINES[id];
  if (engine === undefined) {
    throw new InvalidOptionError("--engine", id, Object.keys(BENCH_ENGINES).join(", "));
  }
  return engine;
}
