/**
 * Per-session chat settings that commands and directives change, and the normalisers that turn
 * what a user typed into one of their values. Normalisers are total: they answer `undefined` for
 * words they do not know and never throw, so the parser can report the valid values instead.
 */

export const THINKING_LEVELS = ["off", "minimal", "low", "medium", "high", "xhigh"] as const;
export type ThinkingLevel = (typeof THINKING_LEVELS)[number];

export const VERBOSE_LEVELS = ["off", "on", "full"] as const;
export type VerboseLevel = (typeof VERBOSE_LEVELS)[number];

export const REASONING_LEVELS = ["off", "on", "stream"] as const;
export type ReasoningLevel = (typeof REASONING_LEVELS)[number];

export const USAGE_MODES = ["off", "tokens", "full"] as const;
export type UsageMode = (typeof USAGE_MODES)[number];

/** What a session remembers between messages. An absent field means "use the configured default". */
export interface SessionSettings {
  thinkingLevel?: ThinkingLevel;
  verbose?: VerboseLevel;
  reasoning?: ReasoningLevel;
  usageMode?: UsageMode;
  /** A model reference (`provider/model`) pinned for the session. */
  model?: string;
}

const OFF_WORDS = ["off", "false", "no", "0", "disable", "disabled", "none"];
const ON_WORDS = ["on", "true", "yes", "1", "enable", "enabled"];

/**
 * Thinking level aliases. `on` means "think, but cheaply": it maps to `low` so a bare switch-on
 * never silently buys the most expensive level.
 */
const THINKING_ALIASES: Readonly<Record<string, ThinkingLevel>> = {
  ...Object.fromEntries(OFF_WORDS.map((word) => [word, "off"] as const)),
  ...Object.fromEntries(ON_WORDS.map((word) => [word, "low"] as const)),
  min: "minimal",
  med: "medium",
  mid: "medium",
  "x-high": "xhigh",
  "extra-high": "xhigh",
  extrahigh: "xhigh",
};

const VERBOSE_ALIASES: Readonly<Record<string, VerboseLevel>> = {
  ...Object.fromEntries(OFF_WORDS.map((word) => [word, "off"] as const)),
  ...Object.fromEntries(ON_WORDS.map((word) => [word, "on"] as const)),
  all: "full",
};

const REASONING_ALIASES: Readonly<Record<string, ReasoningLevel>> = {
  ...Object.fromEntries(OFF_WORDS.map((word) => [word, "off"] as const)),
  ...Object.fromEntries(ON_WORDS.map((word) => [word, "on"] as const)),
  hide: "off",
  hidden: "off",
  show: "on",
  streaming: "stream",
  live: "stream",
};

const USAGE_ALIASES: Readonly<Record<string, UsageMode>> = {
  ...Object.fromEntries(OFF_WORDS.filter((word) => word !== "none").map((word) => [word, "off"] as const)),
  ...Object.fromEntries(ON_WORDS.map((word) => [word, "tokens"] as const)),
  token: "tokens",
  tok: "tokens",
  minimal: "tokens",
  min: "tokens",
  session: "full",
};

function normalize<Level extends string>(
  value: string,
  levels: readonly Level[],
  aliases: Readonly<Record<string, Level>>,
): Level | undefined {
  const word = value.trim().toLowerCase();
  const exact = levels.find((level) => level === word);
  return exact ?? (Object.hasOwn(aliases, word) ? aliases[word] : undefined);
}

/** `HIGH` → `high`, `on` → `low`, `min` → `minimal`; unknown words → `undefined`. */
export function normalizeThinkingLevel(value: string): ThinkingLevel | undefined {
  return normalize(value, THINKING_LEVELS, THINKING_ALIASES);
}

/** `on`/`off`/`full` and their yes/no synonyms; unknown words → `undefined`. */
export function normalizeVerboseLevel(value: string): VerboseLevel | undefined {
  return normalize(value, VERBOSE_LEVELS, VERBOSE_ALIASES);
}

/** `on`/`off`/`stream` and their synonyms (`show`, `hide`, `streaming`); unknown words → `undefined`. */
export function normalizeReasoningLevel(value: string): ReasoningLevel | undefined {
  return normalize(value, REASONING_LEVELS, REASONING_ALIASES);
}

/**
 * Reference §3.2: off/false/no/0/disable(d) → off; on/true/yes/1/enable(d)/tokens/token/tok/
 * minimal/min → tokens; full/session → full. Unknown words → `undefined`.
 */
export function normalizeUsageMode(value: string): UsageMode | undefined {
  return normalize(value, USAGE_MODES, USAGE_ALIASES);
}

/** `/usage` without an argument cycles off → tokens → full → off; unset counts as off. */
export function nextUsageMode(current: UsageMode | undefined): UsageMode {
  if (current === "tokens") return "full";
  if (current === "full") return "off";
  return "tokens";
}
