/**
 * Number formatting shared by the status card, the usage footer and the compaction line.
 * All pure; none throws.
 */

/**
 * Token counts as people read them (reference §3.1): below 1000 as is; from 1000 `x.yk` with
 * one decimal below 10k and none above; from one million `x.ym`. Rounding never shows a unit's
 * ceiling (999 950 reads `1.0m`, not `1000k`). Negative or non-finite input reads `?`.
 */
export function formatCompactTokens(tokens: number): string {
  if (!Number.isFinite(tokens) || tokens < 0) return "?";
  const whole = Math.round(tokens);
  if (whole < 1000) return String(whole);
  const thousands = whole / 1000;
  if (Number(thousands.toFixed(1)) < 10) return `${thousands.toFixed(1)}k`;
  if (Math.round(thousands) < 1000) return `${Math.round(thousands)}k`;
  return `${(whole / 1_000_000).toFixed(1)}m`;
}

/** Percent of `used` in `window`, rounded, capped at 999 so a runaway figure stays readable. */
export function formatPercent(used: number, window: number): string {
  return `${Math.min(999, Math.round((used / window) * 100))}%`;
}

/**
 * `<used>/<window> (<pct>%)`; an unknown `used` reads `?/<window>` without a percentage, and
 * so does a window of zero.
 */
export function formatContextUsage(used: number | undefined, window: number): string {
  const windowText = formatCompactTokens(window);
  if (used === undefined || !Number.isFinite(used)) return `?/${windowText}`;
  if (window <= 0) return `${formatCompactTokens(used)}/${windowText}`;
  return `${formatCompactTokens(used)}/${windowText} (${formatPercent(used, window)})`;
}

/** Dollars with cents, or four decimals below one cent so tiny runs do not read `$0.00`. */
export function formatUsd(value: number): string {
  return value >= 0.01 || value === 0 ? `$${value.toFixed(2)}` : `$${value.toFixed(4)}`;
}

/** `just now`, `5m ago`, `3h ago`, `2d ago`; a time in the future reads `just now`. */
export function formatTimeAgo(then: number, now: number): string {
  const minutes = Math.floor((now - then) / 60_000);
  if (minutes < 1) return "just now";
  if (minutes < 60) return `${minutes}m ago`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours}h ago`;
  return `${Math.floor(hours / 24)}d ago`;
}

/** A duration in the largest whole unit: `1h`, `5m`, `30s`, `250ms`. */
export function formatDuration(milliseconds: number): string {
  if (milliseconds > 0 && milliseconds % 3_600_000 === 0) return `${milliseconds / 3_600_000}h`;
  if (milliseconds > 0 && milliseconds % 60_000 === 0) return `${milliseconds / 60_000}m`;
  if (milliseconds > 0 && milliseconds % 1_000 === 0) return `${milliseconds / 1_000}s`;
  return `${milliseconds}ms`;
}
