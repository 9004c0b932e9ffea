import { getEventListeners } from "node:events";
import { type FakeProvider, startFakeProvider } from "@clew/agent/testing";
import type { AssistantMessageEvent } from "@mariozechner/pi-ai";
import { afterEach, describe, expect, it, vi } from "vitest";
import { callModel } from "../../src/providers/call-model.js";
import { type ResolvedModel, resolveModel } from "../../src/providers/resolve-model.js";
import { resolveFake, userMessage } from "./helpers.js";

describe("callModel", () => {
  let fake: FakeProvider | undefined;
  afterEach(async () => {
    vi.unstubAllEnvs();
    await fake?.close();
  });

  it("reaches an OpenAI-compatible custom provider (ollama) with no key, never sending the process's OpenAI key", async () => {
    vi.stubEnv("OPENAI_API_KEY", "sk-real-secret");
    fake = await startFakeProvider({
      protocol: "openai-completions",
      script: () => ({ text: "llama here" }),
    });
    const resolved = resolveModel(
      {
        models: { providers: { ollama: { api: "openai-completions", baseUrl: fake.baseUrl } } },
        agents: { defaults: { model: "ollama/llama3.2" } },
      },
      { agentId: "main", purpose: "chat", env: {} },
    );
    const message = await callModel(resolved, {
      systemPrompt: "Be brief.",
      messages: [userMessage("hi")],
      tools: [],
    });

    expect(message.stopReason).toBe("stop");
    expect(message.content).toEqual([{ type: "text", text: "llama here" }]);
    expect(message).toMatchObject({ provider: "ollama", model: "llama3.2", api: "openai-completions" });
    const recorded = fake.requests[0];
    expect(recorded?.headers.authorization).toBe("Bearer clew-no-key");
    expect(JSON.stringify(recorded?.headers)).not.toContain("sk-real-secret");
    const body = recorded?.body as { model?: string; tools?: unknown } | undefined;
    expect(body?.model).toBe("llama3.2");
    expect(body).not.toHaveProperty("tools");
  });

  for (const protocol of ["openai-completions", "openai-responses", "anthropic-messages"] as const) {
    it(`leaves no abort listener on the caller's signal once a call is over (${protocol})`, async () => {
      fake = await startFakeProvider({ protocol, script: () => ({ text: "ok" }) });
      const resolved = resolveFake(fake);
      // One signal for a whole turn, as the runner passes it to every step of a tool loop.
      const turn = new AbortController();
      for (let step = 0; step < 12; step++) {
        const message = await callModel(
          resolved,
          { systemPrompt: "", messages: [userMessage("hi")], tools: [] },
          { signal: turn.signal },
        );
        expect(message.stopReason).toBe("stop");
      }
      expect(getEventListeners(turn.signal, "abort")).toHaveLength(0);
    });
  }

  it("still aborts a call in flight through the caller's signal", async () => {
    fake = await startFakeProvider({
      protocol: "openai-completions",
      script: () => ({ text: "slow", delayMs: 5_000 }),
    });
    const turn = new AbortController();
    const call = callModel(
      resolveFake(fake),
      { systemPrompt: "", messages: [userMessage("hi")], tools: [] },
      { signal: turn.signal },
    );
    await vi.waitFor(() => expect(fake?.requests).toHaveLength(1));
    turn.abort(new Error("user pressed Ctrl-C"));
    const message = await call;
    expect(message.stopReason).toBe("aborted");
    expect(getEventListeners(turn.signal, "abort")).toHaveLength(0);
    // A signal that fired before the call: the call stops as aborted, and nothing is left on it.
    const late = await callModel(
      resolveFake(fake),
      { systemPrompt: "", messages: [userMessage("hi")], tools: [] },
      { signal: turn.signal },
    );
    expect(late.stopReason).toBe("aborted");
    expect(getEventListeners(turn.signal, "abort")).toHaveLength(0);
  });

  it("sends the resolved API key", async () => {
    fake = await startFakeProvider({ protocol: "anthropic-messages", script: () => ({ text: "ok" }) });
    const resolved = resolveModel(
      {
        models: { providers: { anthropic: { baseUrl: fake.baseUrl } } },
        agents: { defaults: { model: "anthropic/claude-sonnet-4-5" } },
      },
      { agentId: "main", purpose: "chat", env: { ANTHROPIC_API_KEY: "sk-ant-test" } },
    );
    await callModel(resolved, { systemPrompt: "", messages: [userMessage("hi")], tools: [] });
    expect(fake.requests[0]?.headers["x-api-key"]).toBe("sk-ant-test");
  });

  it("keeps streaming when an event listener throws", async () => {
    fake = await startFakeProvider({ protocol: "openai-responses", script: () => ({ text: "still fine" }) });
    const seen: AssistantMessageEvent["type"][] = [];
    const message = await callModel(
      resolveFake(fake),
      { systemPrompt: "", messages: [userMessage("hi")], tools: [] },
      {
        onEvent: (event) => {
          seen.push(event.type);
          throw new Error("listener bug");
        },
      },
    );
    expect(message.stopReason).toBe("stop");
    expect(seen.at(-1)).toBe("done");
  });

  it("resolves an error message instead of throwing when pi-ai cannot start the call", async () => {
    const resolved: ResolvedModel = {
      ref: "odd/model",
      apiKey: undefined,
      contextWindow: 1000,
      model: {
        id: "model",
        name: "model",
        api: "no-such-api",
        provider: "odd",
        baseUrl: "http://127.0.0.1:9",
        reasoning: false,
        input: ["text"],
        cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
        contextWindow: 1000,
        maxTokens: 100,
      },
    };
    const events: AssistantMessageEvent[] = [];
    const message = await callModel(
      resolved,
      { systemPrompt: "", messages: [userMessage("hi")], tools: [] },
      { onEvent: (event) => events.push(event), now: () => 42 },
    );
    expect(message).toMatchObject({ stopReason: "error", timestamp: 42, provider: "odd", model: "model" });
    expect(message.errorMessage).toContain("no-such-api");
    expect(events.map((event) => event.type)).toEqual(["error"]);
  });
});
