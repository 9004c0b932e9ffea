import { describe, expect, it } from "vitest";
import {
  formatCompactTokens,
  formatContextUsage,
  formatDuration,
  formatTimeAgo,
  formatUsd,
} from "../../src/commands/index.js";

describe("formatCompactTokens", () => {
  it.each([
    [0, "0"],
    [7, "7"],
    [999, "999"],
    [999.4, "999"],
    [1000, "1.0k"],
    [1234, "1.2k"],
    [9949, "9.9k"],
    [9999, "10k"],
    [10_000, "10k"],
    [12_345, "12k"],
    [128_000, "128k"],
    [999_499, "999k"],
    [999_500, "1.0m"],
    [1_000_000, "1.0m"],
    [1_250_000, "1.3m"],
    [12_345_678, "12.3m"],
    [-5, "?"],
    [Number.NaN, "?"],
    [Number.POSITIVE_INFINITY, "?"],
  ])("formats %d as %s", (tokens, text) => {
    expect(formatCompactTokens(tokens)).toBe(text);
  });
});

describe("formatContextUsage", () => {
  it.each([
    [3400, 128_000, "3.4k/128k (3%)"],
    [undefined, 128_000, "?/128k"],
    [500, 0, "500/0"],
    [5_000_000, 200, "5.0m/200 (999%)"],
  ])("formats %s of %d as %s", (used, window, text) => {
    expect(formatContextUsage(used, window)).toBe(text);
  });
});

describe("small formatters", () => {
  it.each([
    [0, "$0.00"],
    [0.0123, "$0.01"],
    [0.004567, "$0.0046"],
    [12.5, "$12.50"],
  ])("formats %d dollars as %s", (value, text) => {
    expect(formatUsd(value)).toBe(text);
  });

  const now = 1_700_000_000_000;
  it.each([
    [now + 5_000, "just now"],
    [now - 59_000, "just now"],
    [now - 5 * 60_000, "5m ago"],
    [now - 3 * 3_600_000, "3h ago"],
    [now - 47 * 3_600_000, "47h ago"],
    [now - 3 * 86_400_000, "3d ago"],
  ])("formats an update at %d as %s", (then, text) => {
    expect(formatTimeAgo(then, now)).toBe(text);
  });

  it.each([
    [3_600_000, "1h"],
    [300_000, "5m"],
    [90_000, "90s"],
    [250, "250ms"],
    [0, "0ms"],
  ])("formats %d ms as %s", (milliseconds, text) => {
    expect(formatDuration(milliseconds)).toBe(text);
  });
});
