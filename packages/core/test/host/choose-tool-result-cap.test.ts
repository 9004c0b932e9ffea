import { describe, expect, it } from "vitest";
import { chooseToolResultCap, MIN_TOOL_RESULT_CHARS } from "../../src/host/choose-tool-result-cap.js";
import { capToolResults, toolResultCharCap } from "../../src/host/prepare-context.js";
import {
  type AgentMessage,
  charEstimateTokenCounter,
  countMessagesTokens,
  PRECHECK_SAFETY_MARGIN,
  type ToolResultMessage,
} from "../../src/index.js";
import { userMessage } from "../support.js";

const counter = charEstimateTokenCounter;
const WINDOW = 32_000;

function result(id: string, chars: number): ToolResultMessage {
  return {
    role: "toolResult",
    toolCallId: id,
    toolName: "read",
    content: [{ type: "text", text: `${id}:${"r".repeat(chars)}` }],
    isError: false,
    timestamp: 1,
  };
}

function estimate(messages: AgentMessage[], fixedTokens: number): number {
  return Math.ceil((fixedTokens + countMessagesTokens(counter, messages)) * PRECHECK_SAFETY_MARGIN);
}

describe("chooseToolResultCap", () => {
  const messages: AgentMessage[] = [
    userMessage("read them"),
    ...["a", "b", "c", "d"].map((id) => result(id, 40_000)),
  ];

  it("picks the largest cap under which the request fits the budget", () => {
    const cap = chooseToolResultCap({
      messages,
      fixedTokens: 100,
      budgetTokens: WINDOW,
      contextWindow: WINDOW,
      counter,
    });
    expect(cap).toBeDefined();
    const capped = capToolResults([...messages], cap as number);
    expect(estimate(capped, 100)).toBeLessThanOrEqual(WINDOW);
    // The next larger candidate (twice the cap, or the window's own cap) would not fit.
    const larger = Math.min(toolResultCharCap(WINDOW), (cap as number) * 2);
    expect(estimate(capToolResults([...messages], larger), 100)).toBeGreaterThan(WINDOW);
  });

  it("falls back to the smallest cap that still cuts when nothing fits, then says cutting is over", () => {
    const tight = { messages, fixedTokens: 100, budgetTokens: 500, contextWindow: WINDOW, counter };
    expect(chooseToolResultCap(tight)).toBe(MIN_TOOL_RESULT_CHARS);
    expect(chooseToolResultCap({ ...tight, currentCap: MIN_TOOL_RESULT_CHARS })).toBeUndefined();
  });

  it("answers undefined when no tool result is long enough to cut", () => {
    const small = [userMessage("hi"), result("a", 500)];
    expect(
      chooseToolResultCap({
        messages: small,
        fixedTokens: 0,
        budgetTokens: 10,
        contextWindow: WINDOW,
        counter,
      }),
    ).toBeUndefined();
  });
});
