/**
 * The run report: what one model run was made of, captured on every run and stored with the
 * session (`contextReport` in the sessions index), so `/context` and `clew context` can show what
 * the model actually saw, offline, for any engine. When a session has no run yet, an estimate of
 * the same shape is computed on demand with `source: "estimate"`.
 *
 * Sizes are characters of the text as sent; token figures in reports are `ceil(chars / 4)` unless
 * a field says it was counted (`history.tokens`, `session`). The JSON schema for this type is
 * `contextRunReportSchema`; bump `schemaVersion` on any incompatible change.
 */
export interface ContextRunReport {
  schemaVersion: 1;
  source: "run" | "estimate";
  /** Epoch milliseconds. */
  generatedAt: number;
  sessionId?: string;
  sessionKey?: string;
  provider?: string;
  model?: string;
  workspaceDir?: string;
  /** The context engine that assembled the run. */
  engine?: { configured: string; effective: string };
  bootstrap: {
    maxChars: number;
    totalMaxChars: number;
    warningMode: "off" | "once" | "always";
    /** Whether the truncation warning block was in this run's system prompt. */
    warningShown: boolean;
    truncatedFiles: number;
  };
  systemPrompt: {
    chars: number;
    /** The "# Project Context" section: injected files and their frame. */
    projectContextChars: number;
    nonProjectContextChars: number;
    /** Every section in prompt order, the engine's addition included. */
    sections: Array<{ name: string; chars: number }>;
    /** Chars of the engine's `systemPromptAddition` (0 when none). */
    engineAdditionChars: number;
    /** sha256 of the whole prompt, to see whether it changed between runs. */
    hash: string;
  };
  injectedWorkspaceFiles: Array<{
    name: string;
    path: string;
    status: "OK" | "TRUNCATED" | "MISSING";
    rawChars: number;
    injectedChars: number;
    /** Why a TRUNCATED file was cut: larger than max/file, or the total budget ran out. */
    causes?: Array<"per-file-limit" | "total-limit">;
  }>;
  skills: {
    /** Chars of the whole skills list in the prompt. */
    promptChars: number;
    entries: Array<{ name: string; description: string; location: string; blockChars: number }>;
  };
  tools: {
    /** Chars of the tool list text in the system prompt. */
    listChars: number;
    /** Chars of all tool JSON schemas sent with the request. */
    schemaChars: number;
    entries: Array<{
      name: string;
      summaryChars: number;
      schemaChars: number;
      propertiesCount: number | null;
    }>;
  };
  /** The messages the model was sent (after the engine and pruning), by kind. */
  history: {
    messages: number;
    chars: HistoryBreakdown;
    /** Counted with the session's token counter. */
    tokens: HistoryBreakdown;
    /** Id of the token counter behind `tokens` (e.g. `chars/4`, `o200k`). */
    counter?: string;
  };
  session: {
    /** Tokens of the prompt the provider reported for the run's last call, when it did. */
    contextTokens: number | null;
    /** The context window used for budgets. */
    window: number;
    compactions: number;
  };
}

export interface HistoryBreakdown {
  user: number;
  assistant: number;
  toolResults: number;
  summaries: number;
  other: number;
}
