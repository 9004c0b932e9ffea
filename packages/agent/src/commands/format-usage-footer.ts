import { formatCompactTokens, formatContextUsage, formatUsd } from "./format-numbers.js";
import type { UsageMode } from "./settings.js";

/** A run's accumulated token usage. `cost` in dollars, absent when pricing is unknown. */
export interface UsageTotals {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  cost?: number;
}

export interface UsageFooterContext {
  sessionKey: string;
  contextUsed?: number;
  contextWindow?: number;
  /** The model label, e.g. `anthropic/claude-sonnet-4-5`. */
  model?: string;
}

const SEPARATOR = " · ";

/**
 * The footer appended to a reply (reference §3.2), or `undefined` when there is none: mode
 * `off`, or a run that used no tokens at all.
 *
 * - `tokens`: `Usage: 1.2k in / 340 out · cache 800 cached / 0 new` (the cache part only when
 *   the run read or wrote cache).
 * - `full`: the same, then `est $x` (when a non-zero cost is known), `ctx <used>/<window> (<pct>%)`
 *   (when the window is known), `model <label>` (when known) and `` session `<key>` ``.
 */
export function formatUsageFooter(
  usage: UsageTotals,
  mode: UsageMode,
  context: UsageFooterContext,
): string | undefined {
  if (mode === "off") return undefined;
  if (usage.input + usage.output + usage.cacheRead + usage.cacheWrite <= 0) return undefined;
  const parts = [`Usage: ${formatCompactTokens(usage.input)} in / ${formatCompactTokens(usage.output)} out`];
  if (usage.cacheRead > 0 || usage.cacheWrite > 0) {
    parts.push(
      `cache ${formatCompactTokens(usage.cacheRead)} cached / ${formatCompactTokens(usage.cacheWrite)} new`,
    );
  }
  if (mode === "full") parts.push(...fullModeParts(usage, context));
  return parts.join(SEPARATOR);
}

function fullModeParts(usage: UsageTotals, context: UsageFooterContext): string[] {
  const parts: string[] = [];
  if (usage.cost !== undefined && usage.cost > 0) parts.push(`est ${formatUsd(usage.cost)}`);
  if (context.contextWindow !== undefined) {
    parts.push(`ctx ${formatContextUsage(context.contextUsed, context.contextWindow)}`);
  }
  if (context.model !== undefined) parts.push(`model ${context.model}`);
  parts.push(`session \`${context.sessionKey}\``);
  return parts;
}
