/**
 * The reply cap reaches the wire: a small-window model served over the Anthropic Messages API
 * (llama.cpp and Ollama offer one) with budget thinking on. pi-ai adds the thinking budget to the
 * reply length it is given, which put a 16k model's request past its window again.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createServiceHarness } from "./service-harness.js";

let harness: Awaited<ReturnType<typeof createServiceHarness>> | undefined;
afterEach(async () => {
  await harness?.cleanup();
  harness = undefined;
});

interface AnthropicBody {
  max_tokens: number;
  thinking?: { type: string; budget_tokens?: number };
  system?: unknown;
  messages: unknown[];
  tools?: unknown[];
}

describe("the reply cap on the wire", () => {
  it("keeps prompt, thinking and reply inside a 16k window with /think medium", async () => {
    harness = await createServiceHarness({
      protocol: "anthropic-messages",
      contextWindow: 16_000,
      maxTokens: 8_192,
      reasoning: true,
      // A small reserve lets a 9,000-token prompt through the overflow check.
      config: { agents: { defaults: { compaction: { reserveTokens: 2_000 } } } },
      replies: [{ text: "ok" }, { text: "ok again" }],
    });
    const { service, fake } = harness;
    await service.createSession({ sessionKey: "agent:main:main" });
    await service.sendMessage("agent:main:main", "/think medium");
    // About 9,000 tokens of prompt: the window leaves some 3,000 for thinking and the reply.
    await service.sendMessage(
      "agent:main:main",
      `Review this: ${"a line of the log to read. ".repeat(1_400)}`,
    );
    const body = fake.requests.at(-1)?.body as AnthropicBody;
    const promptChars = JSON.stringify([body.system, body.messages, body.tools]).length;
    // pi-ai asked for the cap plus an 8,192-token thinking budget, up to the model's 8,192.
    expect(body.thinking?.type).toBe("enabled");
    expect(body.thinking?.budget_tokens).toBeLessThan(body.max_tokens);
    expect(body.max_tokens + Math.ceil(promptChars / 4)).toBeLessThanOrEqual(16_000);
  });
});
