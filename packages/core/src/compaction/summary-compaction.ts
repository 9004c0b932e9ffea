import { abortReason } from "../context-engine/abort.js";
import type { CompactResult } from "../context-engine/types.js";
import { PRECHECK_SAFETY_MARGIN } from "../host/host-options.js";
import type { AgentMessage } from "../messages.js";
import type { SummarizeInput } from "../summarizer/summarizer.js";
import { countMessagesTokens } from "../tokens/estimate.js";
import type { TokenCounter } from "../tokens/token-counter.js";
import type { CompactionEntry } from "../transcript/entries.js";
import type { Transcript } from "../transcript/transcript-store.js";
import { type CompactionPlan, planCompaction } from "./cut-point.js";
import { buildSessionContext, compactionSummaryText } from "./session-context.js";

/** Summarizes a span, saying which summarizer produced the text (the model, or the fallback). */
export type SummarizeSpan = (input: SummarizeInput) => Promise<{ summary: string; summarizerId: string }>;

/** Adds, by code, every identifier the summary lost; returns the completed summary. */
export type PreserveIdentifiers = (
  summary: string,
  sources: { messages: readonly AgentMessage[]; previousSummary?: string },
) => string;

export interface SummaryCompactionOptions {
  summarize: SummarizeSpan;
  preserveIdentifiers: PreserveIdentifiers;
  counter: TokenCounter;
  /** Raw recent history kept after the summary. Default 20,000. */
  keepRecentTokens?: number;
  /** The summary may use up to 80 % of the reserve (and a quarter of a request's budget). Default 20,000. */
  reserveTokens?: number;
  now?: () => number;
}

export interface SummaryCompactionRequest {
  customInstructions?: string;
  /**
   * When given, at most half of it is kept raw (the cut moves into the recent part when needed) and
   * the summary gets at most a quarter, so a small window still gets room.
   */
  tokenBudget?: number;
  signal?: AbortSignal;
}

export const DEFAULT_KEEP_RECENT_TOKENS = 20_000;

/**
 * The runtime's summary compaction over a stored transcript: plans the cut, summarizes the span
 * (updating the previous summary instead of summarizing it again, and the prefix of a split turn
 * on its own), restores identifiers the summarizer dropped, and appends one compaction entry.
 * The transcript keeps every message; only the rebuilt context changes.
 *
 * Never reports `compacted: true` when nothing was removed or the summary would not shrink the
 * context. A summarizer failure rejects (the caller falls back or reports); an abort rejects
 * with the signal's reason before anything is written.
 */
export async function compactTranscript(
  transcript: Transcript,
  request: SummaryCompactionRequest,
  options: SummaryCompactionOptions,
): Promise<CompactResult> {
  const now = options.now ?? Date.now;
  const started = now();
  const branch = transcript.branch();
  const planned = planCompaction(branch, { ...keptLimits(request, options), counter: options.counter });
  if (!planned.ok) return { ok: true, compacted: false, reason: planned.reason };
  const plan = planned.plan;
  const tokensBefore = contextTokens(buildSessionContext(branch).messages, options.counter);

  const { summary, summarizerId } = await summarizePlan(plan, request, options);
  throwIfAborted(request.signal);
  const tokensAfter = options.counter.countText(compactionSummaryText(summary)) + plan.keptTokens;
  if (tokensAfter >= tokensBefore) {
    return {
      ok: true,
      compacted: false,
      reason: `the summary would not shrink the context (${tokensBefore} → ${tokensAfter} tokens)`,
    };
  }
  const durationMs = Math.max(0, now() - started);
  const details = { ...fileOperations([...plan.history, ...plan.turnPrefix]), summarizer: summarizerId };
  const ownId = plan.firstKeptEntryId === undefined ? unusedEntryId(transcript) : undefined;
  const firstKeptEntryId = plan.firstKeptEntryId ?? (ownId as string);
  const [entry] = (await transcript.append([
    {
      type: "compaction",
      ...(ownId === undefined ? {} : { id: ownId }),
      summary,
      firstKeptEntryId,
      tokensBefore,
      tokensAfter,
      details,
      summarizer: summarizerId,
      durationMs,
    },
  ])) as CompactionEntry[];
  await transcript.flush();
  return {
    ok: true,
    compacted: true,
    result: {
      summary,
      firstKeptEntryId,
      tokensBefore,
      tokensAfter,
      details: { ...details, entryId: entry?.id, durationMs },
    },
  };
}

/**
 * How much stays raw. Without a budget: `keepRecentTokens`. With one: at most half of it, and never
 * more than leaves room for the summary under the overflow check's margin
 * (budget / 1.2 − the summary's cap), so one compaction can reach the budget even when the recent
 * part holds huge tool results.
 */
function keptLimits(
  request: SummaryCompactionRequest,
  options: SummaryCompactionOptions,
): { keepRecentTokens: number; maxKeptTokens?: number } {
  const configured = options.keepRecentTokens ?? DEFAULT_KEEP_RECENT_TOKENS;
  if (request.tokenBudget === undefined) return { keepRecentTokens: configured };
  const keepRecentTokens = Math.min(configured, Math.floor(request.tokenBudget / 2));
  const room = Math.floor(request.tokenBudget / PRECHECK_SAFETY_MARGIN) - summaryMaxTokens(request, options);
  return { keepRecentTokens, maxKeptTokens: Math.max(0, room) };
}

/** 80 % of the reserve, and at most a quarter of the budget when there is one. */
function summaryMaxTokens(request: SummaryCompactionRequest, options: SummaryCompactionOptions): number {
  const fromReserve = Math.floor(0.8 * (options.reserveTokens ?? 20_000));
  const fromBudget = request.tokenBudget === undefined ? fromReserve : Math.floor(request.tokenBudget / 4);
  return Math.max(256, Math.min(fromReserve, fromBudget));
}

async function summarizePlan(
  plan: CompactionPlan,
  request: SummaryCompactionRequest,
  options: SummaryCompactionOptions,
): Promise<{ summary: string; summarizerId: string }> {
  const maxTokens = summaryMaxTokens(request, options);
  const previousSummary = plan.previous?.summary;
  const base = (
    messages: AgentMessage[],
    kind: "history" | "turn-prefix",
    previous?: string,
  ): SummarizeInput => {
    const input: SummarizeInput = { messages, maxTokens, kind };
    if (previous !== undefined) input.previousSummary = previous;
    if (request.customInstructions !== undefined) input.customInstructions = request.customInstructions;
    if (request.signal !== undefined) input.signal = request.signal;
    return input;
  };
  const historyWork =
    plan.history.length > 0
      ? options.summarize(base(plan.history, "history", previousSummary))
      : Promise.resolve(
          previousSummary === undefined ? undefined : { summary: previousSummary, summarizerId: "previous" },
        );
  const prefixWork =
    plan.turnPrefix.length > 0
      ? options.summarize(base(plan.turnPrefix, "turn-prefix"))
      : Promise.resolve(undefined);
  const [history, prefix] = await Promise.all([historyWork, prefixWork]);
  const parts = [history?.summary ?? "No prior history."];
  if (prefix !== undefined) parts.push(`---\n\n**Turn Context (split turn):**\n\n${prefix.summary}`);
  const sources = {
    messages: [...plan.history, ...plan.turnPrefix],
    ...(previousSummary === undefined ? {} : { previousSummary }),
  };
  const summary = options.preserveIdentifiers(parts.join("\n\n"), sources);
  const ids = [history?.summarizerId, prefix?.summarizerId].filter(
    (id): id is string => id !== undefined && id !== "previous",
  );
  return { summary, summarizerId: [...new Set(ids)].join("+") || "previous" };
}

/**
 * An id for a compaction that keeps nothing raw and so points at itself: derived from the leaf, so
 * runs stay deterministic, and checked against every stored entry.
 */
function unusedEntryId(transcript: Transcript): string {
  const base = `compaction-${transcript.leafId ?? "root"}`;
  let id = base;
  for (let attempt = 1; transcript.getEntry(id) !== undefined; attempt++) id = `${base}-${attempt}`;
  return id;
}

function contextTokens(messages: readonly AgentMessage[], counter: TokenCounter): number {
  let total = 0;
  for (const message of messages) {
    const summary = message as unknown as { role?: string; summary?: unknown };
    total +=
      summary.role === "compactionSummary" && typeof summary.summary === "string"
        ? counter.countText(compactionSummaryText(summary.summary))
        : countMessagesTokens(counter, [message]);
  }
  return total;
}

/** Paths read and changed by the file tools in the span, as pi records them. */
function fileOperations(messages: readonly AgentMessage[]): { readFiles: string[]; modifiedFiles: string[] } {
  const read = new Set<string>();
  const modified = new Set<string>();
  for (const message of messages) {
    if (
      typeof message !== "object" ||
      message === null ||
      !("role" in message) ||
      message.role !== "assistant"
    )
      continue;
    for (const block of message.content) {
      if (block.type !== "toolCall") continue;
      const path = (block.arguments as { path?: unknown } | undefined)?.path;
      if (typeof path !== "string") continue;
      if (block.name === "read") read.add(path);
      else if (block.name === "write" || block.name === "edit") modified.add(path);
    }
  }
  return { readFiles: [...read].filter((path) => !modified.has(path)), modifiedFiles: [...modified] };
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw abortReason(signal);
}
