import { describe, expect, it } from "vitest";
import {
  type AgentMessage,
  charEstimateTokenCounter,
  type TokenCounter,
  withCountFallback,
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

describe("withCountFallback", () => {
  // A third party's counter that breaks on text it does not expect.
  const brittle: TokenCounter = {
    id: "brittle",
    countText: (text) => {
      if (text.includes("boom")) throw new Error("tokenizer failure");
      return 1;
    },
    countMessage: (message) => {
      if (JSON.stringify(message).includes("boom")) throw new Error("tokenizer failure");
      return 1;
    },
  };

  it("answers what the counter answers, and chars/4 where it throws, under the same id", () => {
    const safe = withCountFallback(brittle);
    expect(safe.id).toBe("brittle");
    expect(safe.countText("fine")).toBe(1);
    expect(safe.countMessage(userMessage("fine"))).toBe(1);
    const odd = userMessage("boom boom boom boom");
    expect(safe.countText("boom boom boom boom")).toBe(
      charEstimateTokenCounter.countText("boom boom boom boom"),
    );
    expect(safe.countMessage(odd)).toBe(charEstimateTokenCounter.countMessage(odd));
    expect(() => brittle.countMessage(odd)).toThrow("tokenizer failure");
  });
});
