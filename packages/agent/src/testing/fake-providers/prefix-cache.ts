/**
 * A model of a provider's prompt cache, and the fake providers' use of it. Real providers cache a
 * request's longest prefix shared with an earlier request (OpenAI automatically, Anthropic up to
 * its cache breakpoints) for a few minutes, from a minimum size, and OpenAI also serves a partial
 * prefix in blocks of 128 tokens. The model is simpler: a prompt is a list of units (what comes
 * before the messages, then each message), a request is served the longest run of leading units
 * it shares with a remembered earlier prompt, whole units only. What the context sent decides is
 * exactly what it measures; where a provider caches less (expiry, minimum size) or more (partial
 * units), it says nothing.
 */
import type { FakeReply, FakeScript, RecordedRequest } from "./types.js";

export class PromptPrefixCache {
  private readonly prompts: string[][] = [];

  /** `remembered`: how many of the latest prompts a request is compared with (all by default). */
  constructor(private readonly remembered = Number.POSITIVE_INFINITY) {}

  /**
   * Tokens of the prompt served from the cache (`tokens[i]` counts `units[i]`); the prompt is then
   * remembered, unless `remember` is false (a provider does not cache a prompt it rejected).
   */
  serve(units: readonly string[], tokens: readonly number[], remember = true): number {
    let shared = 0;
    for (const earlier of this.prompts) shared = Math.max(shared, sharedUnits(earlier, units));
    if (remember) {
      this.prompts.push([...units]);
      if (this.prompts.length > this.remembered) this.prompts.shift();
    }
    let served = 0;
    for (let index = 0; index < shared; index++) served += tokens[index] ?? 0;
    return served;
  }
}

export interface PrefixCache {
  /** `script` with each reply's `input` and `cacheRead` set from the request it answers. */
  script: FakeScript;
  /** Tokens read from the cache by each request answered, in order. */
  readonly cacheReads: readonly number[];
}

/**
 * Wraps `script` with a `PromptPrefixCache` that remembers every prompt it answered: its replies
 * keep their text, tool calls and output tokens, and report `input` and `cacheRead` from the
 * request (a unit counts `ceil(chars / 4)` tokens of its JSON). Rejected requests (an overflow, an
 * error answer) read nothing and are not cached.
 */
export function withPrefixCache(script: FakeScript): PrefixCache {
  const cache = new PromptPrefixCache();
  const cacheReads: number[] = [];
  return {
    cacheReads,
    script(request: RecordedRequest): FakeReply {
      const reply = script(request);
      const units = promptUnits(request.body);
      const tokens = units.map(unitTokens);
      const rejected = reply.overflow === true || reply.status !== undefined || reply.error !== undefined;
      const cacheRead = rejected ? 0 : cache.serve(units, tokens);
      cacheReads.push(cacheRead);
      const input = tokens.reduce((total, count) => total + count, 0) - cacheRead;
      return { ...reply, usage: { output: reply.usage?.output ?? 5, input, cacheRead } };
    },
  };
}

/**
 * Tokens of a request body's prompt units as the fake's cache counts them: the part before the
 * messages first (system prompt, tools, parameters), then one per message.
 */
export function promptUnitTokens(body: unknown): number[] {
  return promptUnits(body).map(unitTokens);
}

/**
 * The request's prompt as units: everything but the messages, then each message. The reply's
 * length cap is no part of a prompt (no provider keys its cache on it), and Clew lowers it as the
 * prompt fills a small window.
 */
function promptUnits(body: unknown): string[] {
  if (typeof body !== "object" || body === null) return [JSON.stringify(body) ?? ""];
  const {
    messages,
    input,
    stream: _stream,
    max_tokens: _maxTokens,
    max_completion_tokens: _maxCompletionTokens,
    max_output_tokens: _maxOutputTokens,
    ...head
  } = body as Record<string, unknown>;
  const list = Array.isArray(messages) ? messages : Array.isArray(input) ? input : [];
  return [JSON.stringify(head), ...list.map((message) => JSON.stringify(message))];
}

function sharedUnits(earlier: readonly string[], units: readonly string[]): number {
  let index = 0;
  while (index < earlier.length && index < units.length && earlier[index] === units[index]) index++;
  return index;
}

function unitTokens(unit: string): number {
  return Math.ceil(unit.length / 4);
}
