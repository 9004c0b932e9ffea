/**
 * The summarizer seam: turns a span of conversation into the text of one compaction summary.
 *
 * Contract:
 * - `summarize` resolves with the summary or rejects; it never returns an empty summary for a
 *   non-empty span (reject instead, so compaction can fall back).
 * - It honours `signal`: on abort it rejects promptly with the signal's reason.
 * - When `previousSummary` is given, the result updates it (keeps what still holds, moves
 *   finished work to done) instead of summarizing the summary as if it were conversation.
 * - The output uses the section headings of `SUMMARY_SECTIONS`, in that order.
 * - Deterministic summarizers must give the same output for the same input.
 */
import type { AgentMessage } from "../messages.js";

/** The fixed sections of every compaction summary, in order. */
export const SUMMARY_SECTIONS = [
  "Goal",
  "Constraints & Rules",
  "Progress",
  "Key Decisions",
  "Open TODOs",
  "Pending User Asks",
  "Exact Identifiers",
  "Next Steps",
  "Critical Context",
] as const;

export type SummarySection = (typeof SUMMARY_SECTIONS)[number];

export interface SummarizeInput {
  /** The span to summarize, oldest first. */
  messages: readonly AgentMessage[];
  /** The summary the span continues from, when there was an earlier compaction. */
  previousSummary?: string;
  /** `/compact` text; data to focus on, never instructions to obey. */
  customInstructions?: string;
  /** Upper bound for the summary length. */
  maxTokens: number;
  /**
   * `history` for the span before the cut; `turn-prefix` for the first part of a turn that the
   * cut split, summarized separately so the kept suffix still makes sense.
   */
  kind?: "history" | "turn-prefix";
  signal?: AbortSignal;
  /**
   * Hears what each model call of this summary took, as the provider reported it (summarizers
   * that call no model never call it). It must not throw; a throw is ignored.
   */
  onUsage?: (usage: SummaryUsage) => void;
}

/** What one model call of a summary took. */
export interface SummaryUsage {
  /** Prompt tokens, cached ones included. */
  inputTokens: number;
  outputTokens: number;
  /** Dollars, when the model's prices are known. */
  costUsd?: number;
}

export interface Summarizer {
  /** Recorded in the compaction entry: `extractive`, or `model:<provider>/<model>`. */
  readonly id: string;
  summarize(input: SummarizeInput): Promise<string>;
}
