import { describe, expect, it } from "vitest";
import { createTokenCounter, parseConfig } from "../../src/index.js";

describe("createTokenCounter", () => {
  it("estimates chars/4 by default", async () => {
    const counter = await createTokenCounter(undefined);
    expect(counter.countText("abcdefgh")).toBe(2);
  });

  it("counts exactly with o200k and applies the safety factor", async () => {
    const exact = await createTokenCounter({ agents: { defaults: { tokens: { counter: "o200k" } } } });
    const padded = await createTokenCounter({
      agents: { defaults: { tokens: { counter: "o200k", safetyFactor: 2 } } },
    });
    const text = "The quick brown fox jumps over the lazy dog.";
    expect(exact.countText(text)).toBe(10);
    expect(padded.countText(text)).toBe(20);
  });

  it("caches counts per message", async () => {
    const counter = await createTokenCounter(undefined);
    const message = { role: "user" as const, content: "x".repeat(400), timestamp: 0 };
    expect(counter.countMessage(message)).toBe(100);
    expect(counter.countMessage(message)).toBe(100);
  });

  it("rejects a safety factor below 1 in config", () => {
    expect(() =>
      parseConfig("{ agents: { defaults: { tokens: { safetyFactor: 0.5 } } } }", "clew.json"),
    ).toThrow("agents.defaults.tokens.safetyFactor: must be >= 1");
  });
});
