import { describe, expect, it } from "vitest";
import { InvalidOptionError } from "../../src/errors.js";
import {
  createToolPrunablePredicate,
  DEFAULT_CONTEXT_PRUNING_SETTINGS,
  parseDurationMs,
  resolveContextPruningSettings,
} from "../../src/pruning/settings.js";

describe("resolveContextPruningSettings", () => {
  it("fills in the reference defaults", () => {
    expect(resolveContextPruningSettings()).toEqual({
      mode: "off",
      ttlMs: 300_000,
      keepLastAssistants: 3,
      softTrimRatio: 0.3,
      hardClearRatio: 0.5,
      minPrunableToolChars: 50_000,
      softTrim: { maxChars: 4_000, headChars: 1_500, tailChars: 1_500 },
      hardClear: { enabled: true, placeholder: "[Old tool result content cleared]" },
      tools: { allow: [], deny: [] },
    });
    expect(resolveContextPruningSettings()).toEqual(DEFAULT_CONTEXT_PRUNING_SETTINGS);
  });

  it("overrides only the fields given", () => {
    const settings = resolveContextPruningSettings({
      mode: "cache-ttl",
      ttl: "1h",
      softTrim: { maxChars: 100 },
      tools: { deny: ["exec"] },
    });
    expect(settings.mode).toBe("cache-ttl");
    expect(settings.ttlMs).toBe(3_600_000);
    expect(settings.softTrim).toEqual({ maxChars: 100, headChars: 1_500, tailChars: 1_500 });
    expect(settings.tools).toEqual({ allow: [], deny: ["exec"] });
  });

  it("rejects bad values with an error naming the field", () => {
    const cases: [object, RegExp][] = [
      [{ mode: "sometimes" }, /contextPruning\.mode/],
      [{ ttl: "soon" }, /contextPruning\.ttl/],
      [{ softTrimRatio: 1.5 }, /contextPruning\.softTrimRatio/],
      [{ keepLastAssistants: -1 }, /contextPruning\.keepLastAssistants/],
      [{ softTrim: { headChars: 2.5 } }, /contextPruning\.softTrim\.headChars/],
      [{ hardClear: { enabled: "yes" } }, /contextPruning\.hardClear\.enabled/],
      [{ tools: { allow: "read" } }, /contextPruning\.tools\.allow/],
    ];
    for (const [config, field] of cases) {
      const attempt = () => resolveContextPruningSettings(config as never);
      expect(attempt).toThrow(InvalidOptionError);
      expect(attempt).toThrow(field);
    }
  });
});

describe("parseDurationMs", () => {
  it("reads minutes by default and the usual units", () => {
    expect(parseDurationMs(5)).toBe(300_000);
    expect(parseDurationMs("5")).toBe(300_000);
    expect(parseDurationMs("30s")).toBe(30_000);
    expect(parseDurationMs("1.5h")).toBe(5_400_000);
    expect(parseDurationMs("250ms")).toBe(250);
    expect(parseDurationMs("2d")).toBe(172_800_000);
  });

  it("rejects negative and unreadable durations", () => {
    expect(() => parseDurationMs(-1, "ttl")).toThrow(/ttl/);
    expect(() => parseDurationMs("5 minutes", "ttl")).toThrow(InvalidOptionError);
  });
});

describe("createToolPrunablePredicate", () => {
  it("allows every tool when allow is empty", () => {
    expect(createToolPrunablePredicate({ allow: [], deny: [] })("anything")).toBe(true);
  });

  it("matches globs case-insensitively, and deny wins over allow", () => {
    const isPrunable = createToolPrunablePredicate({ allow: ["read*", "bash"], deny: ["read_secret*"] });
    expect(isPrunable("read")).toBe(true);
    expect(isPrunable("READ_file")).toBe(true);
    expect(isPrunable("bash")).toBe(true);
    expect(isPrunable("bash2")).toBe(false);
    expect(isPrunable("read_secrets")).toBe(false);
    expect(isPrunable("write")).toBe(false);
  });

  it("treats regex characters in globs literally", () => {
    const isPrunable = createToolPrunablePredicate({ allow: ["mcp.fs(*)"], deny: [] });
    expect(isPrunable("mcp.fs(read)")).toBe(true);
    expect(isPrunable("mcpxfs(read)")).toBe(false);
  });
});
