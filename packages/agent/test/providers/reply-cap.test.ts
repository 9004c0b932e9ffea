import { charEstimateTokenCounter, PRECHECK_SAFETY_MARGIN } from "@clew/core";
import type { Api, Message, Model, Tool } from "@mariozechner/pi-ai";
import { describe, expect, it } from "vitest";
import { capReplyInPayload, MIN_REPLY_TOKENS, replyTokenCap } from "../../src/providers/reply-cap.js";

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

  it("holds the body to the cap whatever pi-ai added for thinking, with Anthropic's budget below it", async () => {
    const model = { api: "anthropic-messages" } as Model<Api>;
    // pi-ai asks for the cap plus a 2,048-token thinking budget.
    const budget = { max_tokens: 7_248, thinking: { type: "enabled", budget_tokens: 2_048 } };
    await capReplyInPayload(5_200)(budget, model);
    expect(budget).toEqual({ max_tokens: 5_200, thinking: { type: "enabled", budget_tokens: 2_048 } });
    const tight = { max_tokens: 8_192, thinking: { type: "enabled", budget_tokens: 8_000 } };
    await capReplyInPayload(3_000)(tight, model);
    expect(tight).toEqual({ max_tokens: 3_000, thinking: { type: "enabled", budget_tokens: 2_999 } });
    // Not even the smallest budget (1,024) fits below the cap: no thinking for this call.
    const tiny = { max_tokens: 8_192, thinking: { type: "enabled", budget_tokens: 1_024 } };
    await capReplyInPayload(900)(tiny, model);
    expect(tiny).toEqual({ max_tokens: 900, thinking: { type: "disabled" } });
    // Every field pi-ai writes; a smaller value stays.
    const others = {
      max_completion_tokens: 9_000,
      max_output_tokens: 100,
      generationConfig: { maxOutputTokens: 9_000 },
    };
    await capReplyInPayload(4_000)(others, model);
    expect(others).toEqual({
      max_completion_tokens: 4_000,
      max_output_tokens: 100,
      generationConfig: { maxOutputTokens: 4_000 },
    });
  });
});
