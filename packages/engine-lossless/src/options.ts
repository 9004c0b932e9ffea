/**
 * Settings of the lossless engine, their defaults, and their validation (a bad value throws
 * `InvalidOptionError` naming the option, before anything is opened).
 */
import {
  charEstimateTokenCounter,
  createExtractiveSummarizer,
  InvalidOptionError,
  type Logger,
  type Summarizer,
  silentLogger,
  type TokenCounter,
} from "@clew/core";

export interface LosslessTuning {
  /**
   * Share of every budget held back for tokenizer differences between the engine's counter and
   * the provider's (default 0.02). Assembly never uses more than
   * `tokenBudget − tokens(systemPromptAddition) − ceil(tokenBudget × budgetMargin)`, counted with
   * the engine's counter.
   */
  budgetMargin: number;
  /** Share of the budget kept as the raw fresh tail (default 0.25: the newest quarter). */
  freshTailShare: number;
  /** Background maintenance compacts when the view passes this share of the budget (0.75). */
  compactionThreshold: number;
  /** Summaries before the fresh tail are condensed when they pass this share of the budget (0.25). */
  summaryShare: number;
  /** Most tokens of raw messages one leaf summary covers (20,000). */
  leafChunkTokens: number;
  /** Most tokens of a leaf summary (1,200). */
  leafTargetTokens: number;
  /** Most tokens of a condensed summary (2,000). */
  condensedTargetTokens: number;
  /** Most items one condensed summary folds (8). */
  condenseFanIn: number;
  /** How long the summarizer may take per summary before the extractive fallback (60 s). */
  summarizerTimeoutMs: number;
  /** Budget assumed for a session before the host has named one (128,000). */
  defaultTokenBudget: number;
}

export interface LosslessEngineOptions extends Partial<LosslessTuning> {
  /** Counts every message once, when it is stored. Default: Clew's chars/4 estimate. */
  tokenCounter?: TokenCounter;
  /** Writes summaries. Default: core's extractive summarizer (deterministic, no model). */
  summarizer?: Summarizer;
  logger?: Logger;
  /** Epoch milliseconds. Default `Date.now`. */
  now?: () => number;
}

export interface ResolvedOptions extends LosslessTuning {
  tokenCounter: TokenCounter;
  summarizer: Summarizer;
  logger: Logger;
  now: () => number;
}

export const DEFAULT_TUNING: Readonly<LosslessTuning> = {
  budgetMargin: 0.02,
  freshTailShare: 0.25,
  compactionThreshold: 0.75,
  summaryShare: 0.25,
  leafChunkTokens: 20_000,
  leafTargetTokens: 1_200,
  condensedTargetTokens: 2_000,
  condenseFanIn: 8,
  summarizerTimeoutMs: 60_000,
  defaultTokenBudget: 128_000,
};

type Check = (value: number) => boolean;
const share: Check = (value) => value >= 0 && value < 1;
const positiveShare: Check = (value) => value > 0 && value <= 1;
const atLeast =
  (minimum: number): Check =>
  (value) =>
    Number.isInteger(value) && value >= minimum;

const CHECKS: Record<keyof LosslessTuning, [Check, string]> = {
  budgetMargin: [share, "a number from 0 up to (not including) 1"],
  freshTailShare: [positiveShare, "a number above 0 and at most 1"],
  compactionThreshold: [positiveShare, "a number above 0 and at most 1"],
  summaryShare: [positiveShare, "a number above 0 and at most 1"],
  leafChunkTokens: [atLeast(500), "an integer of at least 500"],
  leafTargetTokens: [atLeast(100), "an integer of at least 100"],
  condensedTargetTokens: [atLeast(100), "an integer of at least 100"],
  condenseFanIn: [atLeast(2), "an integer of at least 2"],
  summarizerTimeoutMs: [atLeast(1), "a positive integer"],
  defaultTokenBudget: [atLeast(1), "a positive integer"],
};

/** Defaults filled in. @throws InvalidOptionError naming the first bad option. */
export function resolveOptions(options: LosslessEngineOptions = {}): ResolvedOptions {
  const tuning = { ...DEFAULT_TUNING };
  for (const key of Object.keys(CHECKS) as Array<keyof LosslessTuning>) {
    const value = options[key];
    if (value === undefined) continue;
    const [check, expected] = CHECKS[key];
    if (typeof value !== "number" || !Number.isFinite(value) || !check(value)) {
      throw new InvalidOptionError(`lossless.${key}`, value, expected);
    }
    tuning[key] = value;
  }
  return {
    ...tuning,
    tokenCounter: options.tokenCounter ?? charEstimateTokenCounter,
    summarizer: options.summarizer ?? createExtractiveSummarizer(),
    logger: options.logger ?? silentLogger,
    now: options.now ?? Date.now,
  };
}
