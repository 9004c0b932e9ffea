/**
 * Wrappers around any `TokenCounter`: a per-message cache and a safety factor. Both keep the
 * counter contract (deterministic, never throws on odd messages).
 */
import type { AgentMessage } from "../messages.js";
import { charEstimateTokenCounter } from "./estimate.js";
import type { TokenCounter } from "./token-counter.js";

/**
 * Caches `countMessage` per message object. Messages are immutable by contract, so a message's
 * count never changes; a message mutated in place after counting keeps its old count. The cache
 * is a `WeakMap`, so counts go away with their messages. `countText` is not cached (strings are
 * values, and caching them would keep every string alive). Same `id` as `counter`: the figures
 * are the same.
 */
export function withTokenCache(counter: TokenCounter): TokenCounter {
  const counts = new WeakMap<object, number>();
  const countMessage = (message: AgentMessage): number => {
    if (typeof message !== "object" || message === null) return counter.countMessage(message);
    const cached = counts.get(message);
    if (cached !== undefined) return cached;
    const count = counter.countMessage(message);
    counts.set(message, count);
    return count;
  };
  return { id: counter.id, countText: (text) => counter.countText(text), countMessage };
}

/**
 * Holds any counter to the seam's "never throws": a count that throws is taken as chars/4 (of the
 * message's visible parts, else its JSON), so one odd message, or a third party's counter that
 * breaks on it, cannot fail a write or an assembly. Same `id`: a fallback count is an estimate of
 * the same figure.
 */
export function withCountFallback(counter: TokenCounter): TokenCounter {
  return {
    id: counter.id,
    countText: (text) => {
      try {
        return counter.countText(text);
      } catch {
        return charEstimateTokenCounter.countText(typeof text === "string" ? text : String(text));
      }
    },
    countMessage: (message) => {
      try {
        return counter.countMessage(message);
      } catch {
        return charEstimateTokenCounter.countMessage(message);
      }
    },
  };
}

/**
 * Multiplies every count by `factor` and rounds up, for budgeting against a model whose tokenizer
 * is not the one counted (e.g. ×1.2 as OpenClaw's overflow precheck, ×1.3 for Claude against
 * o200k). The id records the factor (`o200k×1.3`) so scaled figures are never mixed with raw ones.
 *
 * @throws RangeError when `factor` is not a finite number ≥ 1 (a factor below one would let a
 *   prompt overflow the window it was budgeted for).
 */
export function withSafetyFactor(counter: TokenCounter, factor: number): TokenCounter {
  if (!Number.isFinite(factor) || factor < 1) {
    throw new RangeError(`withSafetyFactor: factor must be a finite number >= 1, got ${String(factor)}`);
  }
  if (factor === 1) return counter;
  return {
    id: `${counter.id}×${factor}`,
    countText: (text) => scaleUp(counter.countText(text), factor),
    countMessage: (message) => scaleUp(counter.countMessage(message), factor),
  };
}

/** `ceil(count × factor)` without float noise: 10 × 1.2 is 12.000000000000002, and must give 12. */
function scaleUp(count: number, factor: number): number {
  return Math.ceil(Number((count * factor).toPrecision(12)));
}
