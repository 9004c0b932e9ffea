import { mkdirSync } from "node:fs";
/**
 * Building the engine: for a host (the factory opens `<agentDir>/lossless.db`), or around a store
 * the caller opened. Opening migrates the database, so that never happens on a request.
 */
import { join } from "node:path";
import { type ClewConfig, type ContextEngineFactory, createTokenCounter, describeError } from "@clew/core";
import { loadWordVectors } from "./embeddings/word-vectors/word-vector-table.js";
import { LosslessEngine } from "./lossless-engine.js";
import type { LosslessEngineOptions } from "./options.js";
import { openSqliteStore } from "./store/sqlite/sqlite-store.js";

export const LOSSLESS_DATABASE_FILE = "lossless.db";

export interface LosslessEngineFactoryOptions extends LosslessEngineOptions {
  /** Used when the host's factory context names no agent folder. */
  agentDir?: string;
}

/**
 * A factory for hosts and plugin registration. The database is `<agentDir>/lossless.db`, one per
 * agent. When it cannot be opened (a directory in its place, a newer schema, no permission) the
 * engine is still returned and fails open; the reason is logged and kept in `storeFailure`.
 * Without `tokenCounter`, the engine counts like the host (`agents.defaults.tokens` in config).
 *
 * The factory throws `InvalidOptionError` for bad options, and an Error when no agent folder is
 * known (the host then falls back to legacy and says why).
 */
export function createLosslessEngineFactory(
  options: LosslessEngineFactoryOptions = {},
): ContextEngineFactory {
  // The word vectors load with the first engine, not with the factory: registering the plugin
  // (`clew doctor`, plugin status) makes a factory and never an engine.
  let shared: LosslessEngineFactoryOptions | undefined;
  return async (context) => {
    shared ??= withSharedWordVectors(options);
    const engineOptions = shared;
    const agentDir = context.agentDir ?? engineOptions.agentDir;
    if (agentDir === undefined) {
      throw new Error("The lossless engine needs an agent folder (factory context agentDir) for lossless.db");
    }
    const tokenCounter =
      engineOptions.tokenCounter ?? (await createTokenCounter(context.config as ClewConfig | undefined));
    // A new agent has no folder yet; the database is the first thing the engine keeps there.
    mkdirSync(agentDir, { recursive: true });
    return openLosslessEngine(join(agentDir, LOSSLESS_DATABASE_FILE), { ...engineOptions, tokenCounter });
  };
}

/** The engine over the SQLite database at `path`; fails open (see the factory) when it cannot be opened. */
export function openLosslessEngine(path: string, options: LosslessEngineOptions = {}): LosslessEngine {
  try {
    const store = openSqliteStore(path, options.now === undefined ? {} : { now: options.now });
    return new LosslessEngine(store, options);
  } catch (error) {
    const reason = describeError(error);
    options.logger?.warn("lossless: the store could not be opened; the engine fails open", {
      path,
      error: reason,
    });
    return new LosslessEngine(undefined, options, reason);
  }
}

/**
 * `options` with `wordVectors` loaded once, as `wordVectorTable`, for every engine the factory
 * makes: the table is tens of megabytes. Left as given when it is not a usable path or an embedder
 * is given too, so the engine's option check reports it.
 */
function withSharedWordVectors(options: LosslessEngineFactoryOptions): LosslessEngineFactoryOptions {
  const { wordVectors, ...shared } = options;
  if (typeof wordVectors !== "string" || wordVectors === "" || options.embedder !== undefined) return options;
  if (options.wordVectorTable !== undefined) return options;
  const wordVectorTable = loadWordVectors(wordVectors);
  // Reported by the first search (see SessionIndexes); unhandled until an engine exists.
  wordVectorTable.catch(() => undefined);
  return { ...shared, wordVectorTable };
}
