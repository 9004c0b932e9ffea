import type { Summarizer } from "@clew/core";

/** A summarizer that reports what each call cost, as a paid model does. */
export interface PaidSummarizer extends Summarizer {
  /** Calls made so far. */
  readonly calls: number;
}

/**
 * A summarizer that answers `answer` to every call and reports 500 input and 50 output tokens
 * costing `costUsd` for each, as a model summarizer with prices does.
 */
export function paidSummarizer(id: string, answer: string, costUsd: number): PaidSummarizer {
  let calls = 0;
  return {
    id,
    get calls() {
      return calls;
    },
    summarize: async (input) => {
      calls += 1;
      input.onUsage?.({ inputTokens: 500, outputTokens: 50, costUsd });
      return answer;
    },
  };
}
