import type { CompactResult } from "@clew/core";
import { formatCompactTokens, formatContextUsage } from "./format-numbers.js";

/** The fields of a compaction result the `/compact` answer reads; see `summarizeCompactResult`. */
export interface CompactionResultSummary {
  ok: boolean;
  compacted: boolean;
  reason?: string;
  tokensBefore?: number;
  tokensAfter?: number;
}

export interface CompactionContextFigures {
  /** Tokens in context after the compaction; falls back to `tokensAfter` when absent. */
  contextUsed?: number;
  /** No context part when absent. */
  contextWindow?: number;
}

/** Flattens core's `CompactResult` (token figures under `result`) into what the answer reads. */
export function summarizeCompactResult(result: CompactResult): CompactionResultSummary {
  const summary: CompactionResultSummary = { ok: result.ok, compacted: result.compacted };
  if (result.reason !== undefined) summary.reason = result.reason;
  if (result.result?.tokensBefore !== undefined) summary.tokensBefore = result.result.tokensBefore;
  if (result.result?.tokensAfter !== undefined) summary.tokensAfter = result.result.tokensAfter;
  return summary;
}

/**
 * Skip reasons as users should read them. Matched on the start of the reason, which is text
 * Clew's own compactors write (`nothing to compact: …`, `already compacted: …`); a reason from
 * elsewhere is shown as written.
 */
const FRIENDLY_SKIP_REASONS: ReadonlyArray<readonly [prefix: string, text: string]> = [
  ["nothing to compact", "nothing compactable in this session yet"],
  ["already compacted", "session was already compacted recently"],
  ["below threshold", "context is below the compaction threshold"],
  ["below the compaction threshold", "context is below the compaction threshold"],
  ["no real conversation", "no real conversation messages yet"],
];

/** The friendly text for a skip reason, or the reason itself when none fits. */
export function describeCompactionSkip(reason: string): string {
  const lower = reason.trim().toLowerCase();
  const friendly = FRIENDLY_SKIP_REASONS.find(([prefix]) => lower.startsWith(prefix));
  return friendly?.[1] ?? reason.trim();
}

/**
 * The `/compact` answer (reference §3.3): `⚙️ <label>[: <reason>] • Context <used>/<window> (<pct>%)`.
 * Label: `Compacted (<before> → <after>)`, `Compacted (<before> before)`, `Compacted`,
 * `Compaction skipped` (reason made friendly) or `Compaction failed` (reason as given).
 * Never throws.
 */
export function formatCompactionResult(
  result: CompactionResultSummary,
  figures: CompactionContextFigures,
): string {
  const head = `⚙️ ${labelOf(result)}${reasonOf(result)}`;
  if (figures.contextWindow === undefined) return head;
  const used = figures.contextUsed ?? (result.compacted ? result.tokensAfter : undefined);
  return `${head} • Context ${formatContextUsage(used, figures.contextWindow)}`;
}

function labelOf(result: CompactionResultSummary): string {
  if (!result.ok) return "Compaction failed";
  if (!result.compacted) return "Compaction skipped";
  const { tokensBefore, tokensAfter } = result;
  if (tokensBefore !== undefined && tokensAfter !== undefined) {
    return `Compacted (${formatCompactTokens(tokensBefore)} → ${formatCompactTokens(tokensAfter)})`;
  }
  if (tokensBefore !== undefined) return `Compacted (${formatCompactTokens(tokensBefore)} before)`;
  return "Compacted";
}

function reasonOf(result: CompactionResultSummary): string {
  if (result.ok && result.compacted) return "";
  const reason = result.reason?.trim();
  if (reason === undefined || reason === "") return "";
  return `: ${result.ok ? describeCompactionSkip(reason) : reason}`;
}
