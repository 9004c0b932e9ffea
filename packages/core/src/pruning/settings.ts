/**
 * Settings of in-memory session pruning (reference §9, `agents.defaults.contextPruning`): the
 * defaults, validation of a partial config, TTL durations and the tool allow/deny globs.
 */
import { InvalidOptionError } from "../errors.js";

export type ContextPruningMode = "off" | "cache-ttl";

export interface ContextPruningSettings {
  /** `off` never prunes; `cache-ttl` prunes once the provider's prompt cache has expired. */
  mode: ContextPruningMode;
  /** Time since the last cache touch after which pruning may run. */
  ttlMs: number;
  /** Tool results at or after the N-th-last assistant message are never touched. */
  keepLastAssistants: number;
  /** Context share (chars / window chars) from which oversized tool results are soft-trimmed. */
  softTrimRatio: number;
  /** Context share from which old tool results are cleared entirely, oldest first. */
  hardClearRatio: number;
  /** Hard clear runs only when prunable tool results hold at least this many chars. */
  minPrunableToolChars: number;
  softTrim: { maxChars: number; headChars: number; tailChars: number };
  hardClear: { enabled: boolean; placeholder: string };
  /** Glob lists over tool names (`*` matches any run, case-insensitive); deny wins, empty allow = all. */
  tools: { allow: readonly string[]; deny: readonly string[] };
}

/** Partial settings as they appear in config; `ttl` is a duration (`"5m"`, `"1h"`, minutes as a number). */
export interface ContextPruningConfig {
  mode?: ContextPruningMode;
  ttl?: string | number;
  keepLastAssistants?: number;
  softTrimRatio?: number;
  hardClearRatio?: number;
  minPrunableToolChars?: number;
  softTrim?: Partial<ContextPruningSettings["softTrim"]>;
  hardClear?: Partial<ContextPruningSettings["hardClear"]>;
  tools?: Partial<ContextPruningSettings["tools"]>;
}

export const DEFAULT_PRUNING_TTL_MS = 5 * 60_000;
export const HARD_CLEAR_PLACEHOLDER = "[Old tool result content cleared]";

export const DEFAULT_CONTEXT_PRUNING_SETTINGS: Readonly<ContextPruningSettings> = Object.freeze({
  mode: "off",
  ttlMs: DEFAULT_PRUNING_TTL_MS,
  keepLastAssistants: 3,
  softTrimRatio: 0.3,
  hardClearRatio: 0.5,
  minPrunableToolChars: 50_000,
  softTrim: Object.freeze({ maxChars: 4_000, headChars: 1_500, tailChars: 1_500 }),
  hardClear: Object.freeze({ enabled: true, placeholder: HARD_CLEAR_PLACEHOLDER }),
  tools: Object.freeze({ allow: Object.freeze([]), deny: Object.freeze([]) }),
});

const MINUTE_MS = 60_000;
const DURATION_UNITS_MS: Readonly<Record<string, number>> = {
  ms: 1,
  s: 1_000,
  m: MINUTE_MS,
  h: 3_600_000,
  d: 86_400_000,
};

/**
 * Full settings from a partial config, defaults filled in. Throws `InvalidOptionError` naming the
 * field (`contextPruning.<field>`) for an unknown mode, an unparsable ttl, a negative count, a ratio
 * outside [0, 1] or a glob list that is not an array of strings. Returns a new object.
 */
export function resolveContextPruningSettings(config: ContextPruningConfig = {}): ContextPruningSettings {
  const defaults = DEFAULT_CONTEXT_PRUNING_SETTINGS;
  const mode = config.mode ?? defaults.mode;
  if (mode !== "off" && mode !== "cache-ttl") {
    throw new InvalidOptionError("contextPruning.mode", mode, `"off" or "cache-ttl"`);
  }
  return {
    mode,
    ttlMs: config.ttl === undefined ? defaults.ttlMs : parseDurationMs(config.ttl, "contextPruning.ttl"),
    keepLastAssistants: count("keepLastAssistants", config.keepLastAssistants, defaults.keepLastAssistants),
    softTrimRatio: ratio("softTrimRatio", config.softTrimRatio, defaults.softTrimRatio),
    hardClearRatio: ratio("hardClearRatio", config.hardClearRatio, defaults.hardClearRatio),
    minPrunableToolChars: count(
      "minPrunableToolChars",
      config.minPrunableToolChars,
      defaults.minPrunableToolChars,
    ),
    softTrim: {
      maxChars: count("softTrim.maxChars", config.softTrim?.maxChars, defaults.softTrim.maxChars),
      headChars: count("softTrim.headChars", config.softTrim?.headChars, defaults.softTrim.headChars),
      tailChars: count("softTrim.tailChars", config.softTrim?.tailChars, defaults.softTrim.tailChars),
    },
    hardClear: {
      enabled: flag("hardClear.enabled", config.hardClear?.enabled, defaults.hardClear.enabled),
      placeholder: text(
        "hardClear.placeholder",
        config.hardClear?.placeholder,
        defaults.hardClear.placeholder,
      ),
    },
    tools: {
      allow: globs("tools.allow", config.tools?.allow),
      deny: globs("tools.deny", config.tools?.deny),
    },
  };
}

/**
 * Milliseconds of a duration: a number is minutes; a string is a number with an optional unit
 * (`ms`, `s`, `m`, `h`, `d`; minutes when absent). Throws `InvalidOptionError` (naming `option`)
 * for anything else or a negative duration.
 */
export function parseDurationMs(value: string | number, option = "duration"): number {
  if (typeof value === "number") {
    if (!Number.isFinite(value) || value < 0) throw new InvalidOptionError(option, value, "minutes >= 0");
    return value * MINUTE_MS;
  }
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$/i.exec(value);
  const amount = match?.[1];
  if (match === null || amount === undefined) {
    throw new InvalidOptionError(option, value, 'a duration such as "5m", "1h" or "30s"');
  }
  const unit = (match[2] ?? "m").toLowerCase();
  return Number(amount) * (DURATION_UNITS_MS[unit] ?? MINUTE_MS);
}

/**
 * A predicate telling whether a tool's results may be pruned under `tools`: a name matching any
 * deny glob is never prunable; otherwise it is prunable when allow is empty or a glob matches.
 */
export function createToolPrunablePredicate(
  tools: ContextPruningSettings["tools"],
): (toolName: string) => boolean {
  const allow = tools.allow.map(globToRegExp);
  const deny = tools.deny.map(globToRegExp);
  return (toolName) => {
    if (deny.some((pattern) => pattern.test(toolName))) return false;
    return allow.length === 0 || allow.some((pattern) => pattern.test(toolName));
  };
}

function globToRegExp(glob: string): RegExp {
  const pattern = glob
    .trim()
    .split("*")
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
    .join(".*");
  return new RegExp(`^${pattern}$`, "i");
}

function count(field: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new InvalidOptionError(`contextPruning.${field}`, value, "a non-negative integer");
  }
  return value;
}

function ratio(field: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0 || value > 1) {
    throw new InvalidOptionError(`contextPruning.${field}`, value, "a number between 0 and 1");
  }
  return value;
}

function flag(field: string, value: boolean | undefined, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== "boolean")
    throw new InvalidOptionError(`contextPruning.${field}`, value, "true or false");
  return value;
}

function text(field: string, value: string | undefined, fallback: string): string {
  if (value === undefined) return fallback;
  if (typeof value !== "string") throw new InvalidOptionError(`contextPruning.${field}`, value, "a string");
  return value;
}

function globs(field: string, value: readonly string[] | undefined): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.some((entry) => typeof entry !== "string")) {
    throw new InvalidOptionError(`contextPruning.${field}`, value, "an array of glob strings");
  }
  return [...value];
}
