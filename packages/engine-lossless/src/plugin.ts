/**
 * The lossless engine as a plugin (Clew or OpenClaw): `register(api)` registers the engine under
 * the plugin's id, so installing the plugin selects it, and a tool factory that gives every run
 * the recall tools of the engine serving its agent, bound to the run's session. Its database is
 * `<agentDir>/lossless.db`.
 */
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import type { PluginApi, PluginToolContext } from "@clew/plugin-sdk";
import { createLosslessEngineFactory, type LosslessEngineFactoryOptions } from "./create-lossless-engine.js";
import { BUILTIN_WORD_VECTORS } from "./embeddings/word-vectors/word-vector-table.js";
import { LosslessEngine } from "./lossless-engine.js";
import { RECALL_TOOL_NAMES } from "./recall-policy.js";
import type { RecallTool } from "./tools/recall-tools.js";

export const LOSSLESS_PLUGIN_ID = "lossless";

export default function register(api: PluginApi): void {
  // The engine factory runs once per agent (per host resolution); the newest engine per agent
  // folder is the one serving that agent's runs.
  const engines = new Map<string, LosslessEngine>();
  const wordVectors = wordVectorsConfig(api.pluginConfig);
  const createEngine = createLosslessEngineFactory({
    logger: api.logger,
    ...(wordVectors === undefined ? {} : { wordVectors }),
    ...summaryConfig(api.pluginConfig),
  });
  api.registerContextEngine(LOSSLESS_PLUGIN_ID, async (context) => {
    const engine = await createEngine(context);
    if (context.agentDir !== undefined && engine instanceof LosslessEngine)
      engines.set(resolve(context.agentDir), engine);
    return engine;
  });
  api.registerTool((context) => recallToolsFor(engines, context), { names: [...RECALL_TOOL_NAMES] });
}

/**
 * `plugins.entries.lossless.config.wordVectors` (validated by the manifest): `"builtin"` and
 * `false` as they are, a path resolved with `~/` expanded; absent for the engine's default.
 */
function wordVectorsConfig(config: unknown): string | false | undefined {
  const path = (config as { wordVectors?: unknown } | undefined)?.wordVectors;
  if (path === false) return false;
  if (typeof path !== "string") return undefined;
  // "builtin" (or a misspelling of it, which the engine's option check then names) is no path.
  if (path.trim().toLowerCase() === BUILTIN_WORD_VECTORS) return path;
  return path.startsWith("~/") ? join(homedir(), path.slice(2)) : resolve(path);
}

/**
 * `summarizer` and the spend budget from the plugin's config (validated by the manifest): the
 * host's model unless `summarizer` is `"extractive"`.
 */
function summaryConfig(
  config: unknown,
): Pick<
  LosslessEngineFactoryOptions,
  "summarizer" | "summarySpendTokensPerSession" | "summarySpendWindowHours"
> {
  const entries = (config ?? {}) as Record<string, unknown>;
  const budget = entries.summarySpendTokensPerSession;
  const window = entries.summarySpendWindowHours;
  return {
    ...(entries.summarizer === "extractive" ? {} : { summarizer: "host-model" as const }),
    ...(typeof budget === "number" ? { summarySpendTokensPerSession: budget } : {}),
    ...(typeof window === "number" ? { summarySpendWindowHours: window } : {}),
  };
}

/**
 * The recall tools for one run, or none when the run is served by another engine (Clew names it in
 * `contextEngineId`; a fallback or quarantine names `legacy`), when no lossless engine was made for
 * the run's agent, or when the run names no agent folder or session.
 */
export function recallToolsFor(
  engines: ReadonlyMap<string, LosslessEngine>,
  context: PluginToolContext,
): RecallTool[] | undefined {
  if (context.contextEngineId !== undefined && context.contextEngineId !== LOSSLESS_PLUGIN_ID)
    return undefined;
  if (context.agentDir === undefined || context.sessionId === undefined) return undefined;
  const engine = engines.get(resolve(context.agentDir));
  return engine?.tools({
    sessionId: context.sessionId,
    ...(context.sessionKey === undefined ? {} : { sessionKey: context.sessionKey }),
  });
}
