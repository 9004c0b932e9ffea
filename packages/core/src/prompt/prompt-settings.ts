import type { ClewConfig } from "../config/types.js";
import { InvalidOptionError } from "../errors.js";
import { assertTimeZone } from "./prompt-sections.js";
import { TRUNCATION_WARNING_MODES, type TruncationWarningMode } from "./truncation-warning.js";

export const DEFAULT_BOOTSTRAP_MAX_CHARS = 12_000;
export const DEFAULT_BOOTSTRAP_TOTAL_MAX_CHARS = 60_000;
export const DEFAULT_TRUNCATION_WARNING_MODE: TruncationWarningMode = "once";

/** The `agents.defaults` settings the prompt builder reads, with defaults applied. */
export interface PromptSettings {
  bootstrapMaxChars: number;
  bootstrapTotalMaxChars: number;
  truncationWarning: TruncationWarningMode;
  userTimezone?: string;
}

/**
 * Reads `agents.defaults.bootstrapMaxChars` (default 12,000), `bootstrapTotalMaxChars` (default
 * 60,000), `bootstrapPromptTruncationWarning` (default `once`) and `userTimezone` (unset: UTC
 * only). Throws `InvalidOptionError` naming the key for a non-positive or fractional limit, an
 * unknown warning mode, or a time zone `Intl` does not know, so bad config fails at load, not mid-run.
 */
export function resolvePromptSettings(config: ClewConfig): PromptSettings {
  const defaults = config.agents?.defaults ?? {};
  const settings: PromptSettings = {
    bootstrapMaxChars: positiveInteger(
      "agents.defaults.bootstrapMaxChars",
      defaults.bootstrapMaxChars,
      DEFAULT_BOOTSTRAP_MAX_CHARS,
    ),
    bootstrapTotalMaxChars: positiveInteger(
      "agents.defaults.bootstrapTotalMaxChars",
      defaults.bootstrapTotalMaxChars,
      DEFAULT_BOOTSTRAP_TOTAL_MAX_CHARS,
    ),
    truncationWarning: warningMode(defaults.bootstrapPromptTruncationWarning),
  };
  const timeZone = defaults.userTimezone;
  if (timeZone !== undefined) {
    if (typeof timeZone !== "string") {
      throw new InvalidOptionError("agents.defaults.userTimezone", timeZone, "an IANA time zone name");
    }
    assertTimeZone(timeZone);
    settings.userTimezone = timeZone;
  }
  return settings;
}

function positiveInteger(option: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1) {
    throw new InvalidOptionError(option, value, "a positive integer");
  }
  return value;
}

function warningMode(value: unknown): TruncationWarningMode {
  if (value === undefined) return DEFAULT_TRUNCATION_WARNING_MODE;
  if (!TRUNCATION_WARNING_MODES.includes(value as TruncationWarningMode)) {
    throw new InvalidOptionError(
      "agents.defaults.bootstrapPromptTruncationWarning",
      value,
      TRUNCATION_WARNING_MODES.join(" | "),
    );
  }
  return value as TruncationWarningMode;
}
