/**
 * M8 in tokens: what a provider that caches prompt prefixes would serve from its cache. Every
 * request of the replay counts (each step of a tool loop is a billed call). A request is served
 * the longest prefix, in whole parts (the system prompt, then each message), that it shares with
 * one of the last `RECENT_REQUESTS` requests; the rest is read at full price. Providers cache for
 * minutes and only prefixes past a minimum size, so this is the best case: the part the engine's
 * context decides. The agent's test through a fake provider (`withPrefixCache`) measures the same
 * at the wire.
 */
import type { AgentMessage, TokenCounter } from "@clew/core";
import { share } from "./figure.js";
import { messageKeyCache } from "./prefix-stability.js";

/** Earlier requests a request is compared with (a provider keeps a prefix for minutes). */
const RECENT_REQUESTS = 8;

export interface PromptCacheReport {
  requests: number;
  promptTokens: number;
  servedTokens: number;
  /** `servedTokens / promptTokens`. */
  servedShare: number;
  /** Requests after the first served less than half of their prompt. */
  mostlyMissed: number;
}

interface SentRequest {
  keys: string[];
}

export class PromptCacheTracker {
  private readonly recent: SentRequest[] = [];
  private requests = 0;
  private promptTokens = 0;
  private servedTokens = 0;
  private mostlyMissed = 0;

  /** A message as the provider compares it: its serialized form. */
  private readonly key = messageKeyCache();

  constructor(private readonly counter: TokenCounter) {}

  /** One request, as sent: its system prompt and its messages. */
  observe(systemPrompt: string, messages: readonly AgentMessage[]): void {
    const keys = [`system:${systemPrompt}`, ...messages.map(this.key)];
    const tokens = [
      this.counter.countText(systemPrompt),
      ...messages.map((message) => this.counter.countMessage(message)),
    ];
    let shared = 0;
    for (const earlier of this.recent) shared = Math.max(shared, sharedParts(earlier.keys, keys));
    const total = sum(tokens);
    const served = sum(tokens.slice(0, shared));
    if (this.requests > 0 && served < total / 2) this.mostlyMissed += 1;
    this.requests += 1;
    this.promptTokens += total;
    this.servedTokens += served;
    this.recent.push({ keys });
    if (this.recent.length > RECENT_REQUESTS) this.recent.shift();
  }

  result(): PromptCacheReport {
    return {
      requests: this.requests,
      promptTokens: this.promptTokens,
      servedTokens: this.servedTokens,
      servedShare: share(this.servedTokens, this.promptTokens),
      mostlyMissed: this.mostlyMissed,
    };
  }
}

function sharedParts(earlier: readonly string[], keys: readonly string[]): number {
  let index = 0;
  while (index < earlier.length && index < keys.length && earlier[index] === keys[index]) index += 1;
  return index;
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}
