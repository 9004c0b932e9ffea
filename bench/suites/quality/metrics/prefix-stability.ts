/**
 * M8, prefix (cache) stability: between turns t and t+1 with no compaction in between, the request
 * of turn t must be a prefix of the request of turn t+1 (message by message, canonical JSON), so a
 * provider's prompt cache keeps working. After each compaction, how many tokens of common prefix
 * survive is recorded.
 */
import type { AgentMessage, TokenCounter } from "@clew/core";
import { canonicalJson } from "../../../metrics/message-hash.js";
import { mean, share } from "./figure.js";

export interface PrefixStabilityReport {
  /** Consecutive turn pairs without a compaction between them. */
  pairs: number;
  stable: number;
  stableShare: number;
  /**
   * The same without the messages the engine sends for one request only (query-aware evidence
   * after the stable prefix): whether the part a provider can cache stayed a prefix. Equal to
   * `stableShare` for engines that add none.
   */
  cacheableStable: number;
  cacheableStableShare: number;
  compactionEvents: number;
  /** Tokens of common prefix kept across each compaction event, averaged. */
  prefixTokensKeptMean: number;
}

/** Number of leading messages two requests share. */
export function commonPrefixLength(
  previous: readonly AgentMessage[],
  next: readonly AgentMessage[],
  key: (message: AgentMessage) => string = canonicalJson,
): number {
  let length = 0;
  while (length < previous.length && length < next.length) {
    if (key(previous[length] as AgentMessage) !== key(next[length] as AgentMessage)) break;
    length += 1;
  }
  return length;
}

/** Fed the first request of each turn in order; keeps only the previous one. */
export class PrefixStabilityTracker {
  private previous: readonly AgentMessage[] | undefined;
  private pairs = 0;
  private stable = 0;
  private cacheableStable = 0;
  private previousCacheable: readonly AgentMessage[] | undefined;
  private readonly keptAfterCompaction: number[] = [];
  private readonly key = messageKeyCache();

  constructor(
    private readonly counter: TokenCounter,
    private readonly requestOnly?: (message: AgentMessage) => boolean,
  ) {}

  /** `compactedSincePrevious`: a compaction ran between the previous request and this one. */
  observe(request: readonly AgentMessage[], compactedSincePrevious: boolean): void {
    const previous = this.previous;
    const previousCacheable = this.previousCacheable;
    this.previous = request;
    const requestOnly = this.requestOnly;
    const cacheable =
      requestOnly === undefined ? request : request.filter((message) => !requestOnly(message));
    this.previousCacheable = cacheable;
    if (previous === undefined || previousCacheable === undefined) return;
    const common = commonPrefixLength(previous, request, (message) => this.key(message));
    if (compactedSincePrevious) {
      let tokens = 0;
      for (const message of request.slice(0, common)) tokens += this.counter.countMessage(message);
      this.keptAfterCompaction.push(tokens);
      return;
    }
    this.pairs += 1;
    if (common === previous.length) this.stable += 1;
    const key = (message: AgentMessage) => this.key(message);
    if (commonPrefixLength(previousCacheable, cacheable, key) === previousCacheable.length)
      this.cacheableStable += 1;
  }

  result(): PrefixStabilityReport {
    return {
      pairs: this.pairs,
      stable: this.stable,
      stableShare: share(this.stable, this.pairs),
      cacheableStable: this.cacheableStable,
      cacheableStableShare: share(this.cacheableStable, this.pairs),
      compactionEvents: this.keptAfterCompaction.length,
      prefixTokensKeptMean: mean(this.keptAfterCompaction),
    };
  }
}

/** `canonicalJson` of a message, computed once per message object (requests repeat most messages). */
export function messageKeyCache(): (message: AgentMessage) => string {
  const keys = new WeakMap<object, string>();
  return (message) => {
    if (typeof message !== "object" || message === null) return canonicalJson(message);
    let key = keys.get(message);
    if (key === undefined) {
      key = canonicalJson(message);
      keys.set(message, key);
    }
    return key;
  };
}
