import { describe, expect, it } from "vitest";
import {
  applyDirectives,
  applyUsageCommand,
  type Directive,
  formatCurrentSetting,
  type ParsedChatInput,
  parseChatInput,
  type SessionSettings,
} from "../../src/commands/index.js";

function directivesOf(text: string): Directive[] {
  const parsed: ParsedChatInput = parseChatInput(text, { authorized: true });
  if (parsed.kind !== "message") throw new Error(`expected a message for ${JSON.stringify(text)}`);
  return parsed.directives;
}

const start: SessionSettings = { thinkingLevel: "low", verbose: "off", model: "openai/gpt-4o-mini" };

describe("applyDirectives", () => {
  it("stores every directive of a directive-only message and acknowledges each", () => {
    const result = applyDirectives(start, directivesOf("/think high /v full /reasoning stream /model a/b"), {
      persist: true,
    });
    const expected = { thinkingLevel: "high", verbose: "full", reasoning: "stream", model: "a/b" };
    expect(result.settings).toEqual(expected);
    expect(result.messageSettings).toEqual(expected);
    expect(result.acknowledgements).toEqual([
      "⚙️ Thinking level: high.",
      "⚙️ Verbose: full.",
      "⚙️ Reasoning: stream.",
      "⚙️ Model: a/b.",
    ]);
    expect(result.errors).toEqual([]);
  });

  it("keeps hints of a mixed message to that message but stores /model", () => {
    const result = applyDirectives(start, directivesOf("explain /think high /v on /model a/b please"), {
      persist: false,
    });
    expect(result.settings).toEqual({ thinkingLevel: "low", verbose: "off", model: "a/b" });
    expect(result.messageSettings).toEqual({ thinkingLevel: "high", verbose: "on", model: "a/b" });
    expect(result.acknowledgements).toEqual([
      "⚙️ Thinking level: high (this message only).",
      "⚙️ Verbose: on (this message only).",
      "⚙️ Model: a/b.",
    ]);
  });

  it("lets the later of two directives of a kind win", () => {
    const result = applyDirectives({}, directivesOf("/t low /t xhigh"), { persist: true });
    expect(result.settings.thinkingLevel).toBe("xhigh");
  });

  it("applies nothing when any directive is invalid and returns the errors", () => {
    const result = applyDirectives(start, directivesOf("/think high /reasoning maybe /model a/b"), {
      persist: true,
    });
    expect(result.settings).toEqual(start);
    expect(result.messageSettings).toEqual(start);
    expect(result.acknowledgements).toEqual([]);
    expect(result.errors).toEqual(['⚠️ Unrecognized reasoning level "maybe". Valid levels: off, on, stream.']);
  });

  it("never mutates the settings it was given", () => {
    const frozen = Object.freeze({ ...start });
    const result = applyDirectives(frozen, directivesOf("/think high"), { persist: true });
    expect(frozen.thinkingLevel).toBe("low");
    expect(result.settings).not.toBe(frozen);
  });

  it("returns equal copies when there are no directives", () => {
    const result = applyDirectives(start, [], { persist: false });
    expect(result).toEqual({ settings: start, messageSettings: start, acknowledgements: [], errors: [] });
  });
});

describe("applyUsageCommand", () => {
  it.each([
    [undefined, "tokens"],
    ["off", "tokens"],
    ["tokens", "full"],
    ["full", "off"],
  ] as const)("cycles from %s to %s", (current, next) => {
    const settings: SessionSettings = current === undefined ? {} : { usageMode: current };
    expect(applyUsageCommand(settings, "cycle")).toEqual({
      settings: { usageMode: next },
      acknowledgement: `⚙️ Usage footer: ${next}.`,
    });
  });

  it("stores an explicit mode and keeps the other settings", () => {
    expect(applyUsageCommand(start, "full").settings).toEqual({ ...start, usageMode: "full" });
  });
});

describe("formatCurrentSetting", () => {
  const defaults = { thinkingLevel: "off", verbose: "off", reasoning: "off", model: "anthropic/claude" };

  it.each([
    ["think", {}, "⚙️ Thinking level: off. Options: off, minimal, low, medium, high, xhigh."],
    [
      "think",
      { thinkingLevel: "high" },
      "⚙️ Thinking level: high. Options: off, minimal, low, medium, high, xhigh.",
    ],
    ["verbose", { verbose: "full" }, "⚙️ Verbose: full. Options: off, on, full."],
    ["reasoning", {}, "⚙️ Reasoning: off. Options: off, on, stream."],
    ["model", {}, "⚙️ Model: anthropic/claude. Change it with /model <provider/model>."],
    ["model", { model: "a/b" }, "⚙️ Model: a/b. Change it with /model <provider/model>."],
  ] as const)("answers a bare /%s with the current value", (name, settings, expected) => {
    expect(formatCurrentSetting(name, settings, defaults)).toBe(expected);
  });
});
