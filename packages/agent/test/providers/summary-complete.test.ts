import { type FakeProvider, type FakeReply, startFakeProvider } from "@clew/agent/testing";
import { createModelSummarizer, ModelCallError } from "@clew/core";
import { afterEach, describe, expect, it } from "vitest";
import { resolveModel } from "../../src/providers/resolve-model.js";
import { createSummaryComplete } from "../../src/providers/summary-complete.js";
import { resolveFake } from "./helpers.js";

describe("createSummaryComplete", () => {
  const fakes: FakeProvider[] = [];
  afterEach(async () => {
    await Promise.all(fakes.splice(0).map((fake) => fake.close()));
  });
  async function fakeAnswering(reply: FakeReply, protocol: FakeProvider["protocol"] = "anthropic-messages") {
    const fake = await startFakeProvider({ protocol, script: () => reply });
    fakes.push(fake);
    return fake;
  }

  it("sends the prompt as one user message with the system prompt and output cap, and answers the text", async () => {
    const fake = await fakeAnswering({ text: "## Goal\n- ship it" });
    const complete = createSummaryComplete(resolveFake(fake), { now: () => 7 });
    const answer = await complete({
      systemPrompt: "Summarize.",
      prompt: "<conversation>…</conversation>",
      maxTokens: 300,
    });

    // 10 input and 5 output tokens (the fake's default usage) at $2 and $10 per million.
    expect(answer).toEqual({
      text: "## Goal\n- ship it",
      usage: { inputTokens: 10, outputTokens: 5, costUsd: expect.closeTo(0.00007, 10) },
    });
    expect(fake.requests[0]?.body).toMatchObject({
      max_tokens: 300,
      system: [{ type: "text", text: "Summarize." }],
      messages: [{ role: "user", content: [{ type: "text", text: "<conversation>…</conversation>" }] }],
    });
  });

  it("calls the compaction model, not the chat model, inside Clew's model summarizer", async () => {
    const chatFake = await fakeAnswering({ text: "chat model" }, "openai-completions");
    const summaryFake = await fakeAnswering({ text: "## Goal\n- fix build 4f2a9c" }, "openai-responses");
    const config = {
      models: {
        providers: {
          local: { api: "openai-completions", baseUrl: chatFake.baseUrl },
          cheap: { api: "openai-responses", baseUrl: summaryFake.baseUrl },
        },
      },
      agents: { defaults: { model: "local/big", compaction: { model: "cheap/small" } } },
    };
    const resolved = resolveModel(config, { agentId: "main", purpose: "summary", env: {} });
    const summarizer = createModelSummarizer({
      complete: createSummaryComplete(resolved),
      id: `model:${resolved.ref}`,
    });
    const usages: unknown[] = [];
    const summary = await summarizer.summarize({
      messages: [{ role: "user", content: "fix build 4f2a9c", timestamp: 1 }],
      maxTokens: 500,
      onUsage: (usage) => usages.push(usage),
    });

    expect(summary).toContain("fix build 4f2a9c");
    // The configured model has no prices: tokens, but no dollars (a zero would read as free).
    expect(usages).toEqual([{ inputTokens: 10, outputTokens: 5 }]);
    expect(summaryFake.requests).toHaveLength(1);
    expect(chatFake.requests).toHaveLength(0);
  });

  it("throws ModelCallError when the model answers with an error, marking overflow", async () => {
    const overflowing = createSummaryComplete(resolveFake(await fakeAnswering({ overflow: true })));
    const failing = createSummaryComplete(
      resolveFake(await fakeAnswering({ status: 400, error: "bad request" })),
      {
        maxRetries: 0,
      },
    );
    const request = { systemPrompt: "s", prompt: "p", maxTokens: 10 };

    await expect(overflowing(request)).rejects.toMatchObject({
      name: "ModelCallError",
      isOverflow: true,
      model: "fake/fake-model",
    });
    const error = await failing(request).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ModelCallError);
    expect(error).toMatchObject({
      isOverflow: false,
      providerMessage: expect.stringContaining("bad request"),
    });
  });

  it("rejects with the signal's reason when aborted", async () => {
    const complete = createSummaryComplete(
      resolveFake(await fakeAnswering({ text: "late", delayMs: 5_000 })),
    );
    const controller = new AbortController();
    const reason = new Error("user pressed stop");
    setTimeout(() => controller.abort(reason), 50);

    await expect(
      complete({ systemPrompt: "s", prompt: "p", maxTokens: 10, signal: controller.signal }),
    ).rejects.toBe(reason);
  });
});
