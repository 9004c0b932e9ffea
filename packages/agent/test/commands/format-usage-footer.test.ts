import { describe, expect, it } from "vitest";
import { formatUsageFooter } from "../../src/commands/index.js";

const usage = { input: 1234, output: 340, cacheRead: 800, cacheWrite: 0, cost: 0.0123 };
const context = {
  sessionKey: "agent:main:main",
  contextUsed: 3400,
  contextWindow: 128_000,
  model: "anthropic/claude-sonnet-4-5",
};

describe("formatUsageFooter", () => {
  it("shows tokens and cache in tokens mode", () => {
    expect(formatUsageFooter(usage, "tokens", context)).toBe(
      "Usage: 1.2k in / 340 out · cache 800 cached / 0 new",
    );
  });

  it("adds cost, context, model and session in full mode", () => {
    expect(formatUsageFooter(usage, "full", context)).toBe(
      "Usage: 1.2k in / 340 out · cache 800 cached / 0 new · est $0.01 · ctx 3.4k/128k (3%) · model anthropic/claude-sonnet-4-5 · session `agent:main:main`",
    );
  });

  it("leaves out the cache part when the run touched no cache", () => {
    expect(formatUsageFooter({ ...usage, cacheRead: 0 }, "tokens", context)).toBe("Usage: 1.2k in / 340 out");
  });

  it("leaves out what full mode does not know", () => {
    expect(
      formatUsageFooter({ input: 20, output: 5, cacheRead: 0, cacheWrite: 0 }, "full", {
        sessionKey: "agent:a:b",
      }),
    ).toBe("Usage: 20 in / 5 out · session `agent:a:b`");
    expect(
      formatUsageFooter({ ...usage, cost: 0 }, "full", { sessionKey: "k", contextWindow: 200_000 }),
    ).toBe("Usage: 1.2k in / 340 out · cache 800 cached / 0 new · ctx ?/200k · session `k`");
  });

  it("shows nothing in off mode", () => {
    expect(formatUsageFooter(usage, "off", context)).toBeUndefined();
  });

  it("shows nothing for a run that used no tokens", () => {
    expect(
      formatUsageFooter({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0 }, "full", context),
    ).toBeUndefined();
  });
});
