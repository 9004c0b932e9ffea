import type { ContextRunReport } from "@clew/core";

/**
 * The session figures `/context json` adds to the report (reference §2.3, Clew's names).
 * `contextTokens` is the window, as in the reference; the provider's prompt figure of the run is
 * `report.session.contextTokens`.
 */
export interface ContextJsonSession {
  /** Prompt tokens of the session's latest run from the sessions index; null when unknown. */
  totalTokens: number | null;
  /** Input tokens the session has used so far; null when unknown. */
  inputTokens: number | null;
  /** Output tokens the session has used so far; null when unknown. */
  outputTokens: number | null;
  /** The context window of the session's model. */
  contextTokens: number;
}

/** What `/context json` prints, described by `contextJsonSchema`. */
export interface ContextJsonDocument {
  report: ContextRunReport;
  session: ContextJsonSession;
}

/**
 * The `/context json` answer: `JSON.stringify({ report, session }, null, 2)`. The output
 * validates against `contextJsonSchema`. Throws only what `JSON.stringify` throws (a report with
 * a cycle or a BigInt, which a real report never has).
 */
export function formatContextJson(report: ContextRunReport, session: ContextJsonSession): string {
  const document: ContextJsonDocument = { report, session };
  return JSON.stringify(document, null, 2);
}
