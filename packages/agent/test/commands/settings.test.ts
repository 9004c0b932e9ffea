import { describe, expect, it } from "vitest";
import {
  normalizeReasoningLevel,
  normalizeThinkingLevel,
  normalizeUsageMode,
  normalizeVerboseLevel,
} from "../../src/commands/index.js";

describe("level normalisers", () => {
  it.each([
    ["off", "off"],
    ["None", "off"],
    ["minimal", "minimal"],
    ["MIN", "minimal"],
    ["low", "low"],
    ["on", "low"],
    ["enabled", "low"],
    ["medium", "medium"],
    ["mid", "medium"],
    ["high", "high"],
    ["xhigh", "xhigh"],
    ["extra-high", "xhigh"],
    ["ultra", undefined],
    ["constructor", undefined],
    ["", undefined],
  ])("thinking %j → %s", (word, level) => {
    expect(normalizeThinkingLevel(word)).toBe(level);
  });

  it.each([
    ["on", "on"],
    ["yes", "on"],
    ["off", "off"],
    ["no", "off"],
    ["full", "full"],
    ["all", "full"],
    ["stream", undefined],
  ])("verbose %j → %s", (word, level) => {
    expect(normalizeVerboseLevel(word)).toBe(level);
  });

  it.each([
    ["on", "on"],
    ["show", "on"],
    ["off", "off"],
    ["hidden", "off"],
    ["stream", "stream"],
    ["streaming", "stream"],
    ["full", undefined],
  ])("reasoning %j → %s", (word, level) => {
    expect(normalizeReasoningLevel(word)).toBe(level);
  });

  it.each([
    ["none", undefined],
    ["cost", undefined],
    [" Full ", "full"],
  ])("usage %j → %s", (word, mode) => {
    expect(normalizeUsageMode(word)).toBe(mode);
  });
});
