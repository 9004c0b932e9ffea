/**
 * Gets the text of a summary, falling back until one is made: the configured summarizer (a model,
 * under a timeout), then the extractive summarizer, then a plain digest of first lines. A summary
 * is therefore always written and history is never dropped because a summarizer failed. Only the
 * caller's abort stops it (rethrown as the signal's reason).
 */
import {
  type AgentMessage,
  abortReason,
  containsVerbatim,
  createExtractiveSummarizer,
  describeError,
  EXTRACTIVE_SUMMARIZER_ID,
  ensureIdentifiers,
  type Logger,
  readableTextParts,
  type Summarizer,
  type SummaryUsage,
} from "@clew/core";
import { condenseExtractively } from "./condense-extractively.js";

/** Identifiers written into a summary's text; all of them stay in its anchors either way. */
const RENDERED_ANCHORS = 60;
/** Room for the heading `ensureIdentifiers` may add and its "…and N more" line. */
const ANCHOR_SECTION_CHARS = 60;
const DIGEST_LINE_CHARS = 160;

export interface SummaryTextRequest {
  summarizer: Summarizer;
  /** What to summarize: raw messages for a leaf, rendered summaries (and stragglers) to condense. */
  messages: readonly AgentMessage[];
  /** For condensing: the children's bodies, merged by code when no model condenses them. */
  childBodies?: readonly string[];
  anchors: readonly string[];
  maxTokens: number;
  customInstructions?: string;
  /** How long the configured summarizer may take before the fallback is used. */
  timeoutMs: number;
  signal?: AbortSignal;
  logger: Logger;
}

export interface SummaryText {
  text: string;
  summarizerId: string;
  /**
   * Dollars the configured summarizer reported for its calls, one that answered nothing usable
   * included (a call that timed out or errored reports nothing).
   */
  costUsd?: number;
}

export async function writeSummaryText(request: SummaryTextRequest): Promise<SummaryText> {
  let costUsd: number | undefined;
  const onUsage = (usage: SummaryUsage) => {
    if (usage.costUsd !== undefined) costUsd = (costUsd ?? 0) + usage.costUsd;
  };
  const fromSummarizer = await tryConfigured(request, onUsage);
  const made = fromSummarizer ?? (await fallbackText(request));
  return {
    text: withMissingAnchors(made.text, request.anchors, request.maxTokens),
    summarizerId: made.summarizerId,
    ...(costUsd === undefined ? {} : { costUsd }),
  };
}

/**
 * Adds the anchors the text lost, as many as fit the length budget (at most `RENDERED_ANCHORS`),
 * so that a paraphrasing summarizer cannot silently drop an identifier the model would need, and a
 * long anchor list cannot push the summary's own content out.
 */
function withMissingAnchors(text: string, anchors: readonly string[], maxTokens: number): string {
  // Only the first missing anchors that fit are written, so the text is searched for no more of
  // them than that: a leaf over a long chunk has thousands.
  let room = maxTokens * 4 - text.length - ANCHOR_SECTION_CHARS;
  const shown: string[] = [];
  for (const anchor of anchors) {
    if (shown.length === RENDERED_ANCHORS || room < 0) break;
    if (containsVerbatim(text, anchor)) continue;
    room -= anchor.length + 3;
    if (room >= 0) shown.push(anchor);
  }
  return shown.length === 0 ? text : ensureIdentifiers(text, shown, shown.length);
}

async function tryConfigured(
  request: SummaryTextRequest,
  onUsage: (usage: SummaryUsage) => void,
): Promise<SummaryText | undefined> {
  const { summarizer, signal } = request;
  // Read once: a summarizer whose id may change (the host's model, bound later) names the text
  // by what it was when the call started.
  const id = summarizer.id;
  if (id === EXTRACTIVE_SUMMARIZER_ID && request.childBodies !== undefined) return undefined;
  const timeout = AbortSignal.timeout(request.timeoutMs);
  const bounded = signal === undefined ? timeout : AbortSignal.any([signal, timeout]);
  try {
    const summary = summarizer.summarize({
      messages: request.messages,
      maxTokens: request.maxTokens,
      kind: "history",
      onUsage,
      ...(request.customInstructions === undefined ? {} : { customInstructions: request.customInstructions }),
      signal: bounded,
    });
    // The race makes a summarizer that ignores its signal lose anyway.
    const text = await Promise.race([summary, rejectWhenAborted(bounded)]);
    if (text.trim().length > 0) return { text, summarizerId: id };
    request.logger.warn("lossless: summarizer returned an empty summary; using the fallback", {
      summarizer: id,
    });
  } catch (error) {
    if (signal?.aborted) throw abortReason(signal);
    request.logger.warn("lossless: summarizer failed; using the fallback", {
      summarizer: id,
      error: describeError(error),
    });
  }
  return undefined;
}

async function fallbackText(request: SummaryTextRequest): Promise<SummaryText> {
  if (request.signal?.aborted) throw abortReason(request.signal);
  if (request.childBodies !== undefined) {
    return {
      text: condenseExtractively(request.childBodies, request.maxTokens),
      summarizerId: "extractive-merge",
    };
  }
  try {
    const text = await createExtractiveSummarizer().summarize({
      messages: request.messages,
      maxTokens: request.maxTokens,
    });
    if (text.trim().length > 0) return { text, summarizerId: EXTRACTIVE_SUMMARIZER_ID };
  } catch (error) {
    if (request.signal?.aborted) throw abortReason(request.signal);
    request.logger.warn("lossless: extractive summarizer failed; writing a digest", {
      error: describeError(error),
    });
  }
  return { text: digestOf(request.messages), summarizerId: "digest" };
}

/** The first line of every message: the last resort, which cannot fail. */
function digestOf(messages: readonly AgentMessage[]): string {
  const lines = messages.map((message) => {
    const role = String((message as unknown as Record<string, unknown>).role ?? "message");
    const first = readableTextParts(message).join(" ").trim().split("\n")[0] ?? "";
    return `- ${role}: ${first.slice(0, DIGEST_LINE_CHARS)}`;
  });
  return lines.length > 0 ? lines.join("\n") : "- (no text)";
}

/** Rejects with the signal's reason once it fires; never an unhandled rejection when it loses. */
function rejectWhenAborted(signal: AbortSignal): Promise<never> {
  const rejection = new Promise<never>((_resolve, reject) => {
    if (signal.aborted) reject(signal.reason);
    else signal.addEventListener("abort", () => reject(signal.reason), { once: true });
  });
  rejection.catch(() => undefined);
  return rejection;
}
