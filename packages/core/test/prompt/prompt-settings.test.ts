import { describe, expect, it } from "vitest";
import { ConfigError, InvalidOptionError, parseConfig, resolvePromptSettings } from "../../src/index.js";

describe("resolvePromptSettings", () => {
  it("applies the defaults: 12,000 per file, 60,000 in total, warning once, no time zone", () => {
    expect(resolvePromptSettings({})).toEqual({
      bootstrapMaxChars: 12_000,
      bootstrapTotalMaxChars: 60_000,
      truncationWarning: "once",
    });
  });

  it("reads the agents.defaults keys from a parsed clew.json", () => {
    const config = parseConfig(
      `{ agents: { defaults: { bootstrapMaxChars: 5000, bootstrapTotalMaxChars: 20000,
         bootstrapPromptTruncationWarning: "always", userTimezone: "Europe/Madrid" } } }`,
      "clew.json",
    );
    expect(resolvePromptSettings(config)).toEqual({
      bootstrapMaxChars: 5_000,
      bootstrapTotalMaxChars: 20_000,
      truncationWarning: "always",
      userTimezone: "Europe/Madrid",
    });
  });

  it("rejects bad values in clew.json through the config schema", () => {
    expect(() =>
      parseConfig(`{ agents: { defaults: { bootstrapPromptTruncationWarning: "sometimes" } } }`, "clew.json"),
    ).toThrow(ConfigError);
    expect(() => parseConfig(`{ agents: { defaults: { bootstrapMaxChars: 0 } } }`, "clew.json")).toThrow(
      ConfigError,
    );
  });

  it("names the setting of an unknown time zone, a bad limit or a bad mode given without the schema", () => {
    expect(() => resolvePromptSettings({ agents: { defaults: { userTimezone: "Nowhere/City" } } })).toThrow(
      /agents\.defaults\.userTimezone/,
    );
    expect(() => resolvePromptSettings({ agents: { defaults: { bootstrapTotalMaxChars: -1 } } })).toThrow(
      InvalidOptionError,
    );
    const badMode = { agents: { defaults: { bootstrapPromptTruncationWarning: "loud" as "once" } } };
    expect(() => resolvePromptSettings(badMode)).toThrow(/off \| once \| always/);
  });
});
