/**
 * Figures as `/context` prints them (reference §2.5): integers with en-US thousands separators,
 * token estimates `ceil(chars / 4)`, and the `<chars> chars (~<tok> tok)` pair. All pure; none
 * throws.
 */

const integerFormat = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });

/** `12,345`; non-finite input reads `?` so a corrupt report never prints `NaN`. */
export function formatInteger(value: number): string {
  if (!Number.isFinite(value)) return "?";
  return integerFormat.format(Math.round(value));
}

/** The report's token estimate for a size in characters. */
export function tokensFromChars(chars: number): number {
  return Math.ceil(Math.max(0, chars) / 4);
}

/**
 * `<chars> chars (~<tok> tok)`. `tokens` overrides the estimate when the figure was counted
 * (the report's history tokens).
 */
export function formatCharsAndTokens(chars: number, tokens: number = tokensFromChars(chars)): string {
  return `${formatInteger(chars)} chars (~${formatInteger(tokens)} tok)`;
}

/** `12,345 chars · ~3,087 tok`: the compact form used on map tiles and in the legend. */
export function formatCharsAndTokensShort(chars: number, tokens: number = tokensFromChars(chars)): string {
  return `${formatInteger(chars)} chars · ~${formatInteger(tokens)} tok`;
}

/** Share of `part` in `total` as `34.5%` (one decimal; `0%` for an empty total). */
export function formatShare(part: number, total: number): string {
  if (total <= 0) return "0%";
  return `${((part / total) * 100).toFixed(1)}%`;
}
