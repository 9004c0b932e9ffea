/**
 * M8 in tokens: what a provider's prompt cache would serve of what the engine sent, by the model
 * of `PromptPrefixCache` (`@clew/agent/testing`, which the fake providers use at the wire too):
 * a request is served the longest run of leading parts, whole parts only (its system prompt, then
 * each message), that it shares with one of the `RECENT_REQUESTS` requests before it. Every
 * request of the replay counts (each step of a tool loop is a billed call). Tool schemas are not
 * part of the recorded requests, so they count on neither side. Providers cache only for minutes,
 * from a minimum size, and some serve part of a message too: this models what the context decides.
 */
import { PromptPrefixCache } from "@clew/agent/testing";
import type { AgentMessage, TokenCounter } from "@clew/core";
import { share } from "./figure.js";
import { messageKeyCache } from "./prefix-stability.js";

/** Earlier requests a request is compared with (a provider keeps a prefix for minutes). */
const RECENT_REQUESTS = 8;

export interface PromptCacheReport {
  requests: number;
  promptTokens: number;
  cacheReadTokens: number;
  /** `cacheReadTokens / promptTokens`. */
  cacheReadShare: number;
  /** Requests that read less than half of their prompt from the cache (the first one included). */
  callsMostlyMissed: number;
}

export class PromptCacheTracker {
  private readonly cache = new PromptPrefixCache(RECENT_REQUESTS);
  /** A message as the provider compares it: its serialized form. */
  private readonly key = messageKeyCache();
  private requests = 0;
  private promptTokens = 0;
  private cacheReadTokens = 0;
  private callsMostlyMissed = 0;

  constructor(private readonly counter: TokenCounter) {}

  /** One request, as sent: its system prompt and its messages. */
  observe(systemPrompt: string, messages: readonly AgentMessage[]): void {
    const units = [`system:${systemPrompt}`, ...messages.map(this.key)];
    const tokens = [
      this.counter.countText(systemPrompt),
      ...messages.map((message) => this.counter.countMessage(message)),
    ];
    const total = tokens.reduce((sum, count) => sum + count, 0);
    const read = this.cache.serve(units, tokens);
    if (read < total / 2) this.callsMostlyMissed += 1;
    this.requests += 1;
    this.promptTokens += total;
    this.cacheReadTokens += read;
  }

  result(): PromptCacheReport {
    return {
      requests: this.requests,
      promptTokens: this.promptTokens,
      cacheReadTokens: this.cacheReadTokens,
      cacheReadShare: share(this.cacheReadTokens, this.promptTokens),
      callsMostlyMissed: this.callsMostlyMissed,
    };
  }
}
