/**
 * Engines a cell can run. Each sets up its own registry and the config that selects it, so cells
 * share nothing. A later issue adds plugin engines here; the table puts them side by side.
 */
import {
  type ClewConfig,
  type ContextEngineRegistry,
  createContextEngineRegistry,
  InvalidOptionError,
} from "@clew/core";

export interface BenchEngine {
  id: string;
  description: string;
  /** A registry holding the engine, and a config whose context-engine slot selects it. */
  setup(): { registry: ContextEngineRegistry; config: ClewConfig };
}

const legacy: BenchEngine = {
  id: "legacy",
  description: "built-in legacy engine: pass-through assemble, runtime summary compaction",
  setup: () => ({
    registry: createContextEngineRegistry(),
    config: { plugins: { slots: { contextEngine: "legacy" } } },
  }),
};

export const BENCH_ENGINES: Readonly<Record<string, BenchEngine>> = { legacy };

/** Throws `InvalidOptionError` naming the known engines when `id` is not one of them. */
export function benchEngine(id: string): BenchEngine {
  const engine = BENCH_ENGINES[id];
  if (engine === undefined) {
    throw new InvalidOptionError("--engine", id, Object.keys(BENCH_ENGINES).join(", "));
  }
  return engine;
}
