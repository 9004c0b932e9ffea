/**
 * The provider's prompt cache, as its replies report it. Each assistant message is one model call
 * and carries the call's usage (pi-ai's shape: `input` fresh prompt tokens, `cacheRead` tokens
 * read from the provider's cache, `cacheWrite` tokens written to it). The engine keeps every
 * message, so these figures are in the store already: the flight recorder reads them to show
 * what a compaction did to the cache, measured by the provider rather than predicted by the view.
 * Pure; never throws.
 */
/** One model call's prompt, split by what the provider's cache did with it. */
export interface ModelCallCache {
  /** When the reply was made (the message's `createdAt`, epoch milliseconds). */
  at: number;
  /** Every prompt token: fresh, read from the cache and written to it. */
  promptTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

/** The prompt cache over a run of model calls. */
export interface ProviderCacheFigures {
  calls: number;
  promptTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  /** Calls that read less than half of their prompt from the cache. */
  callsMostlyMissed: number;
}

/**
 * The cache figures of `message` when it is an assistant reply whose usage counts a prompt; a
 * reply without usage, or with zeros (a replay, a failed call: nothing was sent), has none.
 */
export function modelCallCache(message: unknown, at: number): ModelCallCache | undefined {
  if (typeof message !== "object" || message === null) return undefined;
  const { role, usage } = message as { role?: unknown; usage?: unknown };
  if (role !== "assistant" || typeof usage !== "object" || usage === null) return undefined;
  const counts = usage as Record<string, unknown>;
  const input = tokenCount(counts.input);
  const cacheReadTokens = tokenCount(counts.cacheRead);
  const cacheWriteTokens = tokenCount(counts.cacheWrite);
  const promptTokens = input + cacheReadTokens + cacheWriteTokens;
  if (promptTokens === 0) return undefined;
  return { at, promptTokens, cacheReadTokens, cacheWriteTokens };
}

/** The share of the prompt read from the cache, 0 to 1. */
export function cacheReadShare(figures: { promptTokens: number; cacheReadTokens: number }): number {
  return figures.promptTokens <= 0 ? 0 : figures.cacheReadTokens / figures.promptTokens;
}

export function sumModelCalls(calls: readonly ModelCallCache[]): ProviderCacheFigures {
  const figures: ProviderCacheFigures = {
    calls: calls.length,
    promptTokens: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    callsMostlyMissed: 0,
  };
  for (const call of calls) {
    figures.promptTokens += call.promptTokens;
    figures.cacheReadTokens += call.cacheReadTokens;
    figures.cacheWriteTokens += call.cacheWriteTokens;
    if (cacheReadShare(call) < 0.5) figures.callsMostlyMissed += 1;
  }
  return figures;
}

/** A count a provider reported: a finite number of at least 0, anything else counting as 0. */
function tokenCount(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;
}
