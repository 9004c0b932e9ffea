/**
 * The exponent of a power law fitted to (x, y) points: least squares on (ln x, ln y). A per-turn
 * cost that does not grow with history has slope ≈ 0; one linear in history has slope ≈ 1.
 */

/** Undefined with fewer than two usable points (x and y must be > 0) or all x equal. */
export function logLogSlope(points: readonly (readonly [number, number])[]): number | undefined {
  const usable = points
    .filter(([x, y]) => x > 0 && y > 0)
    .map(([x, y]) => [Math.log(x), Math.log(y)] as const);
  if (usable.length < 2) return undefined;
  const meanX = usable.reduce((sum, [x]) => sum + x, 0) / usable.length;
  const meanY = usable.reduce((sum, [, y]) => sum + y, 0) / usable.length;
  let covariance = 0;
  let variance = 0;
  for (const [x, y] of usable) {
    covariance += (x - meanX) * (y - meanY);
    variance += (x - meanX) ** 2;
  }
  return variance === 0 ? undefined : covariance / variance;
}
