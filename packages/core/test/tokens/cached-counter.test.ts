import { describe, expect, it } from "vitest";
import {
  type AgentMessage,
  charEstimateTokenCounter,
  type TokenCounter,
  withSafetyFactor,
  withTokenCache,
} from "../../src/index.js";
import { userMessage } from "../support.js";

/** A real counter (chars/4) that records how often it was asked. */
function countingCounter(): TokenCounter & { messageCalls: number; textCalls: number } {
  const counter = {
    id: "counting",
    messageCalls: 0,
    textCalls: 0,
    countText(text: string) {
      counter.textCalls++;
      return charEstimateTokenCounter.countText(text);
    },
    countMessage(message: AgentMessage) {
      counter.messageCalls++;
      return charEstimateTokenCounter.countMessage(message);
    },
  };
  return counter;
}

describe("withTokenCache", () => {
  it("counts each message object once", () => {
    const inner = countingCounter();
    const cached = withTokenCache(inner);
    const first = userMessage("a".repeat(40));
    const second = userMessage("b".repeat(80));
    expect(cached.countMessage(first)).toBe(10);
    expect(cached.countMessage(first)).toBe(10);
    expect(cached.countMessage(second)).toBe(20);
    expect(cached.countMessage(first)).toBe(10);
    expect(inner.messageCalls).toBe(2);
  });

  it("caches by object identity, so an equal but distinct message is counted again", () => {
    const inner = countingCounter();
    const cached = withTokenCache(inner);
    cached.countMessage(userMessage("same"));
    cached.countMessage(userMessage("same"));
    expect(inner.messageCalls).toBe(2);
  });

  it("keeps the inner id and passes text through uncached", () => {
    const inner = countingCounter();
    const cached = withTokenCache(inner);
    expect(cached.id).toBe("counting");
    cached.countText("abcd");
    cached.countText("abcd");
    expect(inner.textCalls).toBe(2);
  });
});

describe("withSafetyFactor", () => {
  it("multiplies and rounds up", () => {
    const scaled = withSafetyFactor(charEstimateTokenCounter, 1.3);
    expect(scaled.countText("a".repeat(40))).toBe(13);
    expect(scaled.countText("a".repeat(44))).toBe(15); // 11 × 1.3 = 14.3
    expect(scaled.countMessage(userMessage("a".repeat(40)))).toBe(13);
    expect(scaled.id).toBe("chars/4×1.3");
  });

  it("does not round float noise up (10 × 1.2 is 12, not 13)", () => {
    expect(withSafetyFactor(charEstimateTokenCounter, 1.2).countText("a".repeat(40))).toBe(12);
  });

  it("returns the counter itself for a factor of one", () => {
    expect(withSafetyFactor(charEstimateTokenCounter, 1)).toBe(charEstimateTokenCounter);
  });

  it.each([0.5, 0, -1, Number.NaN, Number.POSITIVE_INFINITY])(
    "rejects factor %s with a RangeError",
    (factor) => {
      expect(() => withSafetyFactor(charEstimateTokenCounter, factor)).toThrow(RangeError);
      expect(() => withSafetyFactor(charEstimateTokenCounter, factor)).toThrow(
        /factor must be a finite number >= 1/,
      );
    },
  );

  it("composes with the cache without recounting", () => {
    const inner = countingCounter();
    const counter = withSafetyFactor(withTokenCache(inner), 1.5);
    const message = userMessage("a".repeat(40));
    expect(counter.countMessage(message)).toBe(15);
    expect(counter.countMessage(message)).toBe(15);
    expect(inner.messageCalls).toBe(1);
  });
});
