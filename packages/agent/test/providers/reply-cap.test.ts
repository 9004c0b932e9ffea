import { charEstimateTokenCounter, PRECHECK_SAFETY_MARGIN } from "@clew/core";
import type { Message, Tool } from "@mariozechner/pi-ai";
import { describe, expect, it } from "vitest";
import { MIN_REPLY_TOKENS, replyTokenCap } from "../../src/providers/reply-cap.js";

const counter = charEstimateTokenCounter;
const user = (chars: number): Message => ({ role: "user", content: "u".repeat(chars), timestamp: 1 });
const tool: Tool = {
  name: "read",
  description: "Reads a file.",
  parameters: { type: "object", properties: { path: { type: "string" } } } as Tool["parameters"],
};

function cap(contextWindow: number, modelMaxTokens: number, messages: Message[], tools: Tool[] = []) {
  return replyTokenCap({
    modelMaxTokens,
    contextWindow,
    systemPrompt: "s".repeat(400),
    messages,
    tools,
    counter,
  });
}

describe("replyTokenCap", () => {
  it("leaves the request to pi-ai when its default fits beside the prompt", () => {
    expect(cap(200_000, 64_000, [user(40_000)])).toBeUndefined();
    expect(cap(128_000, 8_192, [user(4_000)])).toBeUndefined();
  });

  it("asks for no more than the window holds after the prompt, with the overflow check's margin", () => {
    const messages = [user(12_000)];
    const prompt = counter.countText("s".repeat(400)) + counter.countMessage(messages[0] as never);
    expect(cap(8_000, 8_192, messages)).toBe(8_000 - Math.ceil(prompt * PRECHECK_SAFETY_MARGIN));
  });

  it("counts the tool schemas as prompt", () => {
    const without = cap(8_000, 8_192, [user(400)]) as number;
    const withTool = cap(8_000, 8_192, [user(400)], [tool]) as number;
    expect(withTool).toBeLessThan(without);
    expect(without - withTool).toBeGreaterThanOrEqual(Math.floor(counter.countText(JSON.stringify([tool]))));
  });

  it("pi-ai's default is the model's maxTokens up to 32,000; an unknown one counts as 32,000", () => {
    const prompt = Math.ceil(
      (counter.countText("s".repeat(400)) + counter.countMessage(user(400) as never)) *
        PRECHECK_SAFETY_MARGIN,
    );
    // Room for 32,000 beside the prompt: pi-ai's default fits, whatever the model's own limit.
    for (const modelMaxTokens of [100_000, 0]) {
      expect(cap(32_000 + prompt, modelMaxTokens, [user(400)])).toBeUndefined();
      expect(cap(31_000 + prompt, modelMaxTokens, [user(400)])).toBe(31_000);
    }
  });

  it("never asks for less than the floor: a prompt that fills the window is an overflow for recovery", () => {
    expect(cap(8_000, 8_192, [user(40_000)])).toBe(MIN_REPLY_TOKENS);
  });
});
