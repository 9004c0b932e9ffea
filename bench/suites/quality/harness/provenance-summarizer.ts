/**
 * The deterministic stub summarizer of the quality suite (no model): for each source message the
 * first sentence plus every token matching `[A-Z0-9_-]{6,}` (at most 12 per message), labelled with
 * the message's source id (`⟦D3:12⟧`); lines of the previous summary are carried over first; the
 * oldest lines are dropped until the summary fits its cap. So a summary lists exactly the source
 * ids whose content it still holds, and "covered by a summary in context" is a label lookup.
 *
 * It keeps the summarizer contract (`core/src/summarizer/summarizer.ts`): same input, same output;
 * never empty; the `SUMMARY_SECTIONS` headings in order; rejects with the signal's reason on abort.
 */
import {
  type AgentMessage,
  abortReason,
  renderSummary,
  type SummarizeInput,
  type Summarizer,
  type SummarizeSpan,
  type TokenCounter,
} from "@clew/core";
import { messageText } from "./message-text.js";

export const PROVENANCE_SUMMARIZER_ID = "bench-provenance-stub";

const IDENTIFIER = /[A-Z0-9_-]{6,}/g;
const MAX_IDENTIFIERS_PER_MESSAGE = 12;
const MAX_SENTENCE_CHARS = 200;
const PREVIOUS_LINE = /^- (⟦[^⟧]+⟧ .*)$/;
const LEVEL = /summary level (\d+)/;

/** The label a summary line carries for source `id`. */
export function sourceLabel(id: string): string {
  return `⟦${id}⟧`;
}

/** Source ids listed by summary labels anywhere in `text`. */
export function labelledSources(text: string): Set<string> {
  return new Set([...text.matchAll(/⟦([^⟧\s]+)⟧/g)].map((match) => match[1] as string));
}

export interface SummarizerStats {
  calls: number;
  sourceMessages: number;
  sourceTokens: number;
  summaryTokens: number;
  /** Deepest chain of summaries folded into one (1 = summarized raw messages only). */
  maxDepth: number;
}

export interface ProvenanceSummarizer extends Summarizer {
  readonly stats: SummarizerStats;
  /** The same summarizer as a `SummarizeSpan`, for callers of `compactTranscript`. */
  readonly span: SummarizeSpan;
}

export interface ProvenanceSummarizerOptions {
  counter: TokenCounter;
  /** The workload's id of a source message; `?` is written for unknown messages. */
  sourceIdOf(message: AgentMessage): string | undefined;
  /** Summary cap in tokens; the request's own `maxTokens` applies when smaller. */
  maxTokens: number;
}

export function createProvenanceSummarizer(options: ProvenanceSummarizerOptions): ProvenanceSummarizer {
  const stats: SummarizerStats = {
    calls: 0,
    sourceMessages: 0,
    sourceTokens: 0,
    summaryTokens: 0,
    maxDepth: 0,
  };
  const summarize = async (input: SummarizeInput): Promise<string> => {
    if (input.signal?.aborted) throw abortReason(input.signal);
    const previous = parsePrevious(input.previousSummary);
    const lines = [...previous.lines, ...input.messages.map((message) => summaryLine(message, options))];
    const depth = previous.depth + 1;
    const summary = fitSummary(lines, depth, Math.min(options.maxTokens, input.maxTokens), options.counter);
    stats.calls += 1;
    stats.sourceMessages += input.messages.length;
    for (const message of input.messages) stats.sourceTokens += options.counter.countMessage(message);
    stats.summaryTokens += options.counter.countText(summary);
    stats.maxDepth = Math.max(stats.maxDepth, depth);
    return summary;
  };
  return {
    id: PROVENANCE_SUMMARIZER_ID,
    stats,
    summarize,
    span: async (input) => ({ summary: await summarize(input), summarizerId: PROVENANCE_SUMMARIZER_ID }),
  };
}

/** `⟦id⟧ first sentence [IDENTIFIERS…]`. */
export function summaryLine(
  message: AgentMessage,
  options: Pick<ProvenanceSummarizerOptions, "sourceIdOf">,
): string {
  const text = messageText(message);
  const sentence = firstSentence(text);
  const identifiers = [...new Set(text.match(IDENTIFIER) ?? [])]
    .filter((token) => /[A-Z0-9]/.test(token) && !sentence.includes(token))
    .slice(0, MAX_IDENTIFIERS_PER_MESSAGE);
  const tail = identifiers.length === 0 ? "" : ` [${identifiers.join(" ")}]`;
  return `${sourceLabel(options.sourceIdOf(message) ?? "?")} ${sentence.length > 0 ? sentence : "(empty)"}${tail}`;
}

function firstSentence(text: string): string {
  const match = /^(.+?[.!?])(?:\s|$)/.exec(text);
  return (match?.[1] ?? text).slice(0, MAX_SENTENCE_CHARS);
}

function parsePrevious(summary: string | undefined): { lines: string[]; depth: number } {
  if (summary === undefined) return { lines: [], depth: 0 };
  const lines = summary
    .split("\n")
    .map((line) => PREVIOUS_LINE.exec(line)?.[1])
    .filter((line): line is string => line !== undefined);
  return { lines, depth: Number(LEVEL.exec(summary)?.[1] ?? "1") };
}

/** The newest lines that fit `limit` tokens once rendered; the oldest go first. */
function fitSummary(lines: readonly string[], depth: number, limit: number, counter: TokenCounter): string {
  const render = (kept: readonly string[]) =>
    renderSummary({ Progress: kept, "Critical Context": [`summary level ${depth}`] });
  let room = limit - counter.countText(render([]));
  let start = lines.length;
  while (start > 0) {
    const cost = counter.countText(`- ${lines[start - 1]}\n`);
    if (cost > room) break;
    room -= cost;
    start -= 1;
  }
  let kept = lines.slice(start);
  while (kept.length > 0 && counter.countText(render(kept)) > limit) kept = kept.slice(1);
  return render(kept);
}
