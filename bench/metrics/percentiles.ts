/** Distribution of one latency measure, in milliseconds. */
export interface LatencySummary {
  samples: number;
  p50Ms: number;
  p95Ms: number;
  meanMs: number;
  minMs: number;
  maxMs: number;
}

/**
 * The `fraction` quantile (0..1) of `values`, interpolated linearly between the two nearest ranks
 * (numpy's default), so a p95 of few samples lands between the top two instead of on the maximum.
 * Throws RangeError for an empty list or a fraction outside 0..1; never mutates `values`.
 */
export function percentile(values: readonly number[], fraction: number): number {
  if (values.length === 0) throw new RangeError("percentile: no samples");
  if (!(fraction >= 0 && fraction <= 1)) throw new RangeError(`percentile: fraction ${fraction} not in 0..1`);
  const sorted = [...values].sort((left, right) => left - right);
  const rank = fraction * (sorted.length - 1);
  const lower = Math.floor(rank);
  const upper = Math.ceil(rank);
  const lowerValue = sorted[lower] as number;
  const upperValue = sorted[upper] as number;
  return lowerValue + (upperValue - lowerValue) * (rank - lower);
}

/** p50, p95, mean, min and max of latency samples in ms. Throws RangeError for no samples. */
export function summarizeLatencies(samplesMs: readonly number[]): LatencySummary {
  if (samplesMs.length === 0) throw new RangeError("summarizeLatencies: no samples");
  const total = samplesMs.reduce((sum, value) => sum + value, 0);
  return {
    samples: samplesMs.length,
    p50Ms: percentile(samplesMs, 0.5),
    p95Ms: percentile(samplesMs, 0.95),
    meanMs: total / samplesMs.length,
    minMs: Math.min(...samplesMs),
    maxMs: Math.max(...samplesMs),
  };
}
