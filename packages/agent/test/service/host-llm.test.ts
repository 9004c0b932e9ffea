import { type ContextEngine, createContextEngineRegistry, delegateCompactionToRuntime } from "@clew/core";
import { afterEach, describe, expect, it } from "vitest";
import { createServiceHarness } from "./service-harness.js";

let harness: Awaited<ReturnType<typeof createServiceHarness>> | undefined;
afterEach(async () => {
  await harness?.cleanup();
  harness = undefined;
});

describe("the host's model call for engines (runtime-llm-complete)", () => {
  it("lets an engine that requires it call the agent's model", async () => {
    const engine: ContextEngine = {
      info: {
        id: "thinker",
        name: "Engine that asks the model",
        hostRequirements: { "agent-run": { requiredCapabilities: ["runtime-llm-complete"] } },
      },
      ingest: async () => ({ ingested: false }),
      assemble: async (params) => {
        const answer = await params.runtimeContext?.llm?.complete({
          systemPrompt: "Summarize the focus in three words.",
          messages: [{ role: "user", content: "what matters now?", timestamp: 0 }],
        });
        return {
          messages: params.messages,
          estimatedTokens: 0,
          systemPromptAddition: `Focus: ${answer?.text}`,
        };
      },
      compact: (params) => delegateCompactionToRuntime(params),
    };
    const registry = createContextEngineRegistry();
    registry.registerContextEngine("thinker", () => engine, { owner: "test:llm" });
    harness = await createServiceHarness({
      registry,
      config: { plugins: { slots: { contextEngine: "thinker" } } },
      replies: [{ text: "ship the fix" }, { text: "Done." }],
    });
    await harness.service.createSession({ sessionKey: "agent:main:main" });
    const result = await harness.service.sendMessage("agent:main:main", "go");
    expect(result).toMatchObject({ ok: true, text: "Done." });
    expect(JSON.stringify(harness.fake.requests[1]?.body)).toContain("Focus: ship the fix");
  });
});
