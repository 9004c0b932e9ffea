/**
 * The parts of `clew.json` that core reads. The file is JSON5; unknown keys are kept by loaders so
 * plugins can read their own sections. Every field is optional: defaults live next to the code
 * that reads them.
 */
export interface PluginEntryConfig {
  enabled?: boolean;
  config?: unknown;
}

export interface PluginSlotsConfig {
  /** Registered id of the selected context engine. Unset, "", "legacy" or "none" select legacy. */
  contextEngine?: string;
  memory?: string;
}

export interface PluginsConfig {
  /** Global switch: false selects legacy silently and loads no plugin. */
  enabled?: boolean;
  /** When non-empty, only these plugin ids are enabled. */
  allow?: string[];
  /** These plugin ids are never enabled. */
  deny?: string[];
  slots?: PluginSlotsConfig;
  entries?: Record<string, PluginEntryConfig>;
  load?: { paths?: string[] };
}

export interface CompactionConfig {
  /** `provider/model` for summaries; defaults to the session's model. */
  model?: string;
  /** False turns off the runtime's threshold compaction after turns (not /compact or overflow). */
  enabled?: boolean;
  /** Watchdog on every engine `compact` call. Default 180. */
  timeoutSeconds?: number;
  /** Tokens kept free for the reply and the next prompt. */
  reserveTokens?: number;
  keepRecentTokens?: number;
}

export interface AgentDefaultsConfig {
  /** `provider/model` used when neither the session nor the agent picks one. */
  model?: string;
  compaction?: CompactionConfig;
  /** Keep only the last N user turns in the model view; unset keeps all. */
  historyLimit?: number;
  /** How tokens are counted for budgets and reports. */
  tokens?: { counter?: "estimate" | "o200k"; safetyFactor?: number };
  /** In-memory session pruning; see `resolveContextPruningSettings`. */
  contextPruning?: Record<string, unknown>;
  /** Caps the context window used for budgeting, whatever the model allows. */
  contextTokens?: number;
  /** Per-file cap on injected workspace files (AGENTS.md, SOUL.md, ...). Default 12,000 chars. */
  bootstrapMaxChars?: number;
  /** Cap over all injected workspace files together. Default 60,000 chars. */
  bootstrapTotalMaxChars?: number;
  /** When the prompt warns that workspace files were truncated. Default `once`. */
  bootstrapPromptTruncationWarning?: "off" | "once" | "always";
  /** IANA time zone of the user (e.g. `Europe/Madrid`); the prompt then shows local time too. */
  userTimezone?: string;
  /**
   * Model calls in one turn before the run stops and says so (a model that keeps calling tools);
   * the next message goes on from there. Default 200.
   */
  maxStepsPerTurn?: number;
}

export interface ClewConfig {
  [section: string]: unknown;
  plugins?: PluginsConfig;
  agents?: {
    defaults?: AgentDefaultsConfig;
    list?: Record<string, { model?: string; [key: string]: unknown }>;
  };
  /** Model providers; read and checked by the agent runtime. */
  models?: { providers?: Record<string, unknown> };
}
