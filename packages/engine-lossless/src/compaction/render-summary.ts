/**
 * How a summary reads to the model: a user message holding the summary in an envelope that names
 * its id (for recall_describe and recall_read), what it covers and when. A summary is never
 * larger than the cap it was made for: an over-long text is cut at the end with a marker, which
 * loses nothing, because the sources and every anchor stay stored and searchable.
 */
import type { AgentMessage, TokenCounter } from "@clew/core";
import type { SummaryKind } from "../store/store.js";

export const SUMMARY_TAG = "lossless-summary";

export interface SummaryEnvelope {
  summaryId: string;
  kind: SummaryKind;
  depth: number;
  sourceRanges: ReadonlyArray<readonly [number, number]>;
  sourceCount: number;
  earliestAt: number;
  latestAt: number;
}

/** `m3–m9, m12`: covered message ids for people and models. */
export function rangesLabel(ranges: ReadonlyArray<readonly [number, number]>): string {
  return ranges.map(([first, last]) => (first === last ? `m${first}` : `m${first}–m${last}`)).join(", ");
}

export function renderSummaryMessage(envelope: SummaryEnvelope, body: string): AgentMessage {
  const attributes = [
    `id="${envelope.summaryId}"`,
    `kind="${envelope.kind}"`,
    `depth="${envelope.depth}"`,
    `covers="${rangesLabel(envelope.sourceRanges)}"`,
    `messages="${envelope.sourceCount}"`,
    `from="${isoTime(envelope.earliestAt)}"`,
    `to="${isoTime(envelope.latestAt)}"`,
  ].join(" ");
  const text = `<${SUMMARY_TAG} ${attributes}>\n${body.trim()}\n</${SUMMARY_TAG}>`;
  return { role: "user", content: text, timestamp: envelope.latestAt };
}

export interface FittedSummary {
  message: AgentMessage;
  /** The body as stored (cut when it had to be). */
  body: string;
  tokens: number;
}

/**
 * The rendered summary within `maxTokens`, cutting the body's end when needed. Undefined when even
 * the envelope with the cut marker alone is over `maxTokens`.
 */
export function fitSummary(
  envelope: SummaryEnvelope,
  body: string,
  maxTokens: number,
  counter: TokenCounter,
): FittedSummary | undefined {
  const render = (text: string): FittedSummary => {
    const message = renderSummaryMessage(envelope, text);
    return { message, body: text, tokens: counter.countMessage(message) };
  };
  const whole = render(body);
  if (whole.tokens <= maxTokens) return whole;
  const marker = cutMarker(envelope);
  if (render(marker).tokens > maxTokens) return undefined;
  let low = 0;
  let high = body.length;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (render(`${body.slice(0, middle)}${marker}`).tokens <= maxTokens) low = middle;
    else high = middle - 1;
  }
  return render(`${body.slice(0, low)}${marker}`);
}

/**
 * Tokens of the smallest summary `fitSummary` makes of any body: the envelope around the cut
 * marker alone. Given less room, a node can be written only from a text short enough to fit whole,
 * which no summarizer can promise, so none is asked (its answer, and what it cost, would be lost).
 */
export function smallestSummaryTokens(envelope: SummaryEnvelope, counter: TokenCounter): number {
  return counter.countMessage(renderSummaryMessage(envelope, cutMarker(envelope)));
}

function cutMarker(envelope: SummaryEnvelope): string {
  return `\n[… summary cut to fit; recall_describe ${envelope.summaryId} lists its anchors]`;
}

/** Tokens of a summary with an empty body: what the envelope takes of a node's room. */
export function envelopeTokens(envelope: SummaryEnvelope, counter: TokenCounter): number {
  return counter.countMessage(renderSummaryMessage(envelope, ""));
}

function isoTime(epochMs: number): string {
  return Number.isFinite(epochMs) && epochMs > 0 ? new Date(epochMs).toISOString() : "unknown";
}
