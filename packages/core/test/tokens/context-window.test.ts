import { getModels } from "@mariozechner/pi-ai";
import { describe, expect, it } from "vitest";
import {
  catalogContextWindow,
  DEFAULT_CONTEXT_WINDOW_TOKENS,
  resolveContextWindow,
} from "../../src/index.js";

describe("resolveContextWindow", () => {
  it("prefers config over the catalog", () => {
    expect(resolveContextWindow({ configured: 64_000, catalog: 1_000_000 })).toEqual({
      tokens: 64_000,
      source: "config",
    });
  });

  it("uses the catalog when nothing is configured", () => {
    expect(resolveContextWindow({ catalog: 400_000 })).toEqual({ tokens: 400_000, source: "catalog" });
  });

  it("defaults to 200,000 tokens", () => {
    expect(resolveContextWindow({})).toEqual({ tokens: 200_000, source: "default" });
    expect(DEFAULT_CONTEXT_WINDOW_TOKENS).toBe(200_000);
  });

  it("caps by contextTokens only when the cap is smaller", () => {
    expect(resolveContextWindow({ catalog: 1_000_000, contextTokensCap: 272_000 })).toEqual({
      tokens: 272_000,
      source: "cap",
    });
    expect(resolveContextWindow({ configured: 100_000, contextTokensCap: 272_000 })).toEqual({
      tokens: 100_000,
      source: "config",
    });
    expect(resolveContextWindow({ contextTokensCap: 50_000 })).toEqual({ tokens: 50_000, source: "cap" });
  });

  it("floors fractional token counts", () => {
    expect(resolveContextWindow({ configured: 1_000.9 }).tokens).toBe(1_000);
  });

  it.each([
    ["configured", { configured: 0 }],
    ["catalog", { catalog: Number.NaN }],
    ["contextTokensCap", { contextTokensCap: -5 }],
  ] as const)("rejects a bad %s value with a RangeError naming the field", (field, inputs) => {
    expect(() => resolveContextWindow(inputs)).toThrow(RangeError);
    expect(() => resolveContextWindow(inputs)).toThrow(field);
  });
});

describe("catalogContextWindow", () => {
  it("reads a known model's window from pi-ai's catalog", async () => {
    const model = getModels("anthropic")[0];
    if (model === undefined) throw new Error("pi-ai lists no anthropic models");
    expect(await catalogContextWindow("anthropic", model.id)).toBe(model.contextWindow);
    expect(model.contextWindow).toBeGreaterThan(0);
  });

  it("answers undefined for an unknown model or provider, without throwing", async () => {
    expect(await catalogContextWindow("anthropic", "no-such-model")).toBeUndefined();
    expect(await catalogContextWindow("no-such-provider", "gpt-4o")).toBeUndefined();
    expect(await catalogContextWindow("", "")).toBeUndefined();
  });

  it("feeds resolveContextWindow", async () => {
    const model = getModels("openai")[0];
    if (model === undefined) throw new Error("pi-ai lists no openai models");
    const catalog = await catalogContextWindow("openai", model.id);
    expect(resolveContextWindow({ catalog })).toEqual({ tokens: model.contextWindow, source: "catalog" });
  });
});
