/**
 * A prompt cache for the fake providers: what a provider that caches every prompt prefix it has
 * been sent would report. Real providers cache a request's longest prefix shared with an earlier
 * request (OpenAI automatically, Anthropic up to its cache breakpoints), within a few minutes. This
 * one caches without a minimum size, breakpoints or expiry: the best case, so what a test measures
 * through it is what the context sent controls. A prompt is cut into units (the part before the
 * messages: system, tools, instructions; then each message) and a unit counts `ceil(chars / 4)`
 * tokens.
 */
import type { FakeReply, FakeScript, RecordedRequest } from "./types.js";

export interface PrefixCache {
  /** `script` with each reply's `input` and `cacheRead` set from the request it answers. */
  script: FakeScript;
  /** Tokens read from the cache by each request answered, in order. */
  readonly cacheReads: readonly number[];
}

/** Wraps `script`: its replies keep their text, tool calls and output tokens. */
export function withPrefixCache(script: FakeScript): PrefixCache {
  const seen: string[][] = [];
  const cacheReads: number[] = [];
  return {
    cacheReads,
    script(request: RecordedRequest): FakeReply {
      const reply = script(request);
      const units = promptUnits(request.body);
      const shared = Math.max(0, ...seen.map((earlier) => sharedPrefix(earlier, units)));
      seen.push(units);
      const tokens = units.map(unitTokens);
      const cacheRead = sum(tokens.slice(0, shared));
      cacheReads.push(cacheRead);
      const input = sum(tokens) - cacheRead;
      return { ...reply, usage: { output: reply.usage?.output ?? 5, input, cacheRead } };
    },
  };
}

/**
 * Tokens of a request body's prompt units as the cache counts them: the part before the messages
 * first, then one per message.
 */
export function promptUnitTokens(body: unknown): number[] {
  return promptUnits(body).map(unitTokens);
}

/** The request's prompt as units: everything but the messages, then each message. */
function promptUnits(body: unknown): string[] {
  if (typeof body !== "object" || body === null) return [JSON.stringify(body) ?? ""];
  const { messages, input, stream: _stream, ...head } = body as Record<string, unknown>;
  const list = Array.isArray(messages) ? messages : Array.isArray(input) ? input : [];
  return [JSON.stringify(head), ...list.map((message) => JSON.stringify(message))];
}

function sharedPrefix(earlier: readonly string[], units: readonly string[]): number {
  let index = 0;
  while (index < earlier.length && index < units.length && earlier[index] === units[index]) index++;
  return index;
}

function unitTokens(unit: string): number {
  return Math.ceil(unit.length / 4);
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}
