import { type ContextEngine, createContextEngineRegistry, delegateCompactionToRuntime } from "@clew/core";
import { afterEach, describe, expect, it } from "vitest";
import { createServiceHarness } from "./service-harness.js";

let harness: Awaited<ReturnType<typeof createServiceHarness>> | undefined;
afterEach(async () => {
  await harness?.cleanup();
  harness = undefined;
});

function projectingEngine(mode: "thread_bootstrap" | "per_turn") {
  const engine: ContextEngine = {
    info: {
      id: "threads",
      name: "Thread engine",
      hostRequirements:
        mode === "thread_bootstrap"
          ? {
              "agent-run": {
                requiredCapabilities: ["thread-bootstrap-projection"],
                unsupportedMessage: "Use an OpenAI Responses model.",
              },
            }
          : {},
    },
    ingest: async () => ({ ingested: false }),
    assemble: async (params) => ({
      messages: params.messages,
      estimatedTokens: 0,
      contextProjection: { mode, epoch: "e1" },
    }),
    compact: (params) => delegateCompactionToRuntime(params),
  };
  const registry = createContextEngineRegistry();
  registry.registerContextEngine("threads", () => engine, { owner: "test:threads" });
  return registry;
}

describe("server threads (OpenAI Responses)", () => {
  it("sends the context once per epoch and continues the server thread after that", async () => {
    harness = await createServiceHarness({
      protocol: "openai-responses",
      registry: projectingEngine("thread_bootstrap"),
      config: { plugins: { slots: { contextEngine: "threads" } } },
      replies: [{ text: "first" }, { text: "second" }],
    });
    const { service, fake } = harness;
    await service.createSession({ sessionKey: "agent:main:main" });
    expect((await service.sendMessage("agent:main:main", "hello")).text).toBe("first");
    expect((await service.sendMessage("agent:main:main", "and again")).text).toBe("second");
    expect(fake.requests[0]?.previousResponseId).toBeUndefined();
    expect(fake.requests[1]?.previousResponseId).toBe(fake.responseIds[0]);
    const secondInput = (fake.requests[1]?.body as { input: unknown[] } | undefined)?.input;
    expect(JSON.stringify(secondInput)).toContain("and again");
    expect(JSON.stringify(secondInput)).not.toContain("hello");
  });

  it("projects the whole context every turn for per_turn engines", async () => {
    harness = await createServiceHarness({
      protocol: "openai-responses",
      registry: projectingEngine("per_turn"),
      config: { plugins: { slots: { contextEngine: "threads" } } },
      replies: [{ text: "first" }, { text: "second" }],
    });
    const { service, fake } = harness;
    await service.createSession({ sessionKey: "agent:main:main" });
    await service.sendMessage("agent:main:main", "hello");
    await service.sendMessage("agent:main:main", "and again");
    expect(fake.requests[1]?.previousResponseId).toBeUndefined();
    expect(JSON.stringify((fake.requests[1]?.body as { input: unknown[] } | undefined)?.input)).toContain(
      "hello",
    );
  });

  it("refuses an engine that needs thread projection on a model without server threads, before the model runs", async () => {
    harness = await createServiceHarness({
      protocol: "openai-completions",
      registry: projectingEngine("thread_bootstrap"),
      config: { plugins: { slots: { contextEngine: "threads" } } },
      replies: [{ text: "never" }],
    });
    await harness.service.createSession({ sessionKey: "agent:main:main" });
    const result = await harness.service.sendMessage("agent:main:main", "hello");
    expect(result.ok).toBe(false);
    expect(result.text).toContain("Missing host capabilities: thread-bootstrap-projection");
    expect(result.text).toContain("Use an OpenAI Responses model.");
    expect(harness.fake.requests).toHaveLength(0);
  });
});
