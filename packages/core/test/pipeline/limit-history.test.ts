import { describe, expect, it } from "vitest";
import { InvalidOptionError, isClewError } from "../../src/errors.js";
import { limitHistoryTurns } from "../../src/pipeline/limit-history.js";
import { assistant, call, result, shape, text, user } from "./builders.js";

const history = [
  assistant([text("greeting")]),
  user("one"),
  assistant([call("a")]),
  result("a"),
  user("two"),
  assistant([text("r2")]),
  user("three"),
  assistant([text("r3")]),
];

describe("limitHistoryTurns", () => {
  it("keeps the slice from the N-th-last user message", () => {
    expect(shape(limitHistoryTurns(history, 2))).toEqual(["user", "assistant", "user", "assistant"]);
    expect(limitHistoryTurns(history, 1)).toEqual([user("three"), assistant([text("r3")])]);
  });

  it("keeps everything without a limit, with a limit of 0, or with fewer user turns than the limit", () => {
    expect(limitHistoryTurns(history, undefined)).toEqual(history);
    expect(limitHistoryTurns(history, 0)).toEqual(history);
    expect(limitHistoryTurns(history, 3)).toEqual(history);
    expect(limitHistoryTurns(history, 10)).toEqual(history);
  });

  it("returns a new array without touching the input", () => {
    const copy = [...history];
    const limited = limitHistoryTurns(history, 10);
    expect(limited).not.toBe(history);
    expect(history).toEqual(copy);
  });

  it("rejects a negative or fractional limit with an error naming the option", () => {
    for (const bad of [-1, 1.5, Number.NaN]) {
      const attempt = () => limitHistoryTurns(history, bad);
      expect(attempt).toThrow(InvalidOptionError);
      expect(attempt).toThrow(/maxUserTurns/);
    }
    try {
      limitHistoryTurns(history, -1);
    } catch (error) {
      expect(isClewError(error) && error.code).toBe("invalid_option");
    }
  });
});
