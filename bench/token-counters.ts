/**
 * Token counters a cell can run with. `chars` is the host's default (chars/4, recounted on every
 * use). The cached variants count each message object once: o200k is far too slow to recount a
 * long history on every turn, so it is only offered cached.
 */
import {
  charEstimateTokenCounter,
  InvalidOptionError,
  loadO200kTokenCounter,
  type TokenCounter,
  withTokenCache,
} from "@clew/core";

export const BENCH_COUNTERS = ["chars", "chars-cached", "o200k-cached"] as const;

export type BenchCounterId = (typeof BENCH_COUNTERS)[number];

export function isBenchCounterId(value: string): value is BenchCounterId {
  return (BENCH_COUNTERS as readonly string[]).includes(value);
}

/** A fresh counter (and cache) for one cell. Throws `InvalidOptionError` for an unknown id. */
export async function loadBenchTokenCounter(id: string): Promise<TokenCounter> {
  switch (id) {
    case "chars":
      return charEstimateTokenCounter;
    case "chars-cached":
      return withTokenCache(charEstimateTokenCounter);
    case "o200k-cached":
      return withTokenCache(await loadO200kTokenCounter());
    default:
      throw new InvalidOptionError("--counter", id, BENCH_COUNTERS.join(", "));
  }
}
