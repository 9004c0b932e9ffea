/**
 * A primary summarizer (usually a model) backed by a fallback (usually `extractive`): compaction
 * should produce a summary even when the model fails, answers nothing or hangs.
 */
import { abortReason } from "../context-engine/abort.js";
import { describeError, EmptySummaryError } from "../errors.js";
import type { Logger } from "../logger.js";
import { raceWithSignal } from "./model-summarizer.js";
import type { SummarizeInput, Summarizer } from "./summarizer.js";

export interface FallbackSummarizerOptions {
  primary: Summarizer;
  fallback: Summarizer;
  /** How long the primary may take before the fallback is used. A positive finite number. */
  timeoutMs: number;
  /** Receives one `warn` line per fallback. */
  logger?: Logger;
}

export interface AttributedSummary {
  summary: string;
  /** The id of the summarizer that produced `summary`; recorded in the compaction entry. */
  summarizerId: string;
}

/** A `Summarizer` whose `summarizeWithSource` also says which summarizer answered. */
export interface FallbackSummarizer extends Summarizer {
  summarizeWithSource(input: SummarizeInput): Promise<AttributedSummary>;
}

/**
 * Combines `primary` and `fallback` (see `summarizeWithFallback`). Its `id` names both
 * (`<primary>|<fallback>`); use `summarizeWithSource` to learn which one produced a summary.
 *
 * @throws RangeError when `timeoutMs` is not a positive finite number.
 */
export function createFallbackSummarizer(options: FallbackSummarizerOptions): FallbackSummarizer {
  checkTimeout(options.timeoutMs);
  const summarizeWithSource = (input: SummarizeInput) => summarizeWithFallback(options, input);
  return {
    id: `${options.primary.id}|${options.fallback.id}`,
    summarizeWithSource,
    summarize: async (input) => (await summarizeWithSource(input)).summary,
  };
}

/**
 * Runs `primary` under `timeoutMs` and the caller's signal. A primary that rejects, answers only
 * whitespace, or runs out of time is replaced by `fallback` (run with the caller's signal, no
 * timeout), and one warning is logged. A caller abort is never fallen back: it rejects with the
 * caller's `signal.reason`, whether it fires before, during or after the primary. Errors of the
 * fallback propagate.
 *
 * @throws RangeError when `timeoutMs` is not a positive finite number.
 */
export async function summarizeWithFallback(
  options: FallbackSummarizerOptions,
  input: SummarizeInput,
): Promise<AttributedSummary> {
  checkTimeout(options.timeoutMs);
  const { primary, fallback, timeoutMs, logger } = options;
  const callerSignal = input.signal;
  if (callerSignal?.aborted) throw abortReason(callerSignal);
  let failure: unknown;
  try {
    const summary = await runWithTimeout(primary, input, timeoutMs);
    if (summary.trim().length > 0) return { summary, summarizerId: primary.id };
    failure = new EmptySummaryError(primary.id);
  } catch (error) {
    if (callerSignal?.aborted) throw abortReason(callerSignal);
    failure = error;
  }
  logger?.warn("summarizer failed; using fallback", {
    primary: primary.id,
    fallback: fallback.id,
    error: describeError(failure),
  });
  const summary = await fallback.summarize(input);
  return { summary, summarizerId: fallback.id };
}

/** The primary's summary, or a rejection with a `TimeoutError` once `timeoutMs` has passed. */
async function runWithTimeout(
  primary: Summarizer,
  input: SummarizeInput,
  timeoutMs: number,
): Promise<string> {
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(timeoutError(primary.id, timeoutMs)), timeoutMs);
  const signal =
    input.signal === undefined ? timeout.signal : AbortSignal.any([input.signal, timeout.signal]);
  try {
    // The race makes a primary that ignores its signal lose anyway.
    return await raceWithSignal(primary.summarize({ ...input, signal }), signal);
  } finally {
    clearTimeout(timer);
  }
}

function timeoutError(summarizerId: string, timeoutMs: number): Error {
  const error = new Error(`Summarizer "${summarizerId}" timed out after ${timeoutMs} ms`);
  error.name = "TimeoutError";
  return error;
}

function checkTimeout(timeoutMs: number): void {
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    throw new RangeError(
      `summarizeWithFallback: timeoutMs must be a positive finite number, got ${String(timeoutMs)}`,
    );
  }
}
