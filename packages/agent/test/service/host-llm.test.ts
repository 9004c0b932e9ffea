import {
  type ClewConfig,
  type ContextEngine,
  createContextEngineRegistry,
  delegateCompactionToRuntime,
} from "@clew/core";
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

  /** The `ref` of the model call offered to an engine, and the usage one call reports. */
  async function offered(config: ClewConfig) {
    const seen: Array<{ ref?: string; costUsd?: number }> = [];
    const engine: ContextEngine = {
      info: { id: "probe", name: "Engine that looks at the model call" },
      ingest: async () => ({ ingested: false }),
      assemble: async (params) => {
        const llm = params.runtimeContext?.llm;
        const answer = await llm?.complete({ messages: [{ role: "user", content: "hi", timestamp: 0 }] });
        seen.push({
          ...(llm?.ref === undefined ? {} : { ref: llm.ref }),
          ...(answer?.usage?.costUsd === undefined ? {} : { costUsd: answer.usage.costUsd }),
        });
        return { messages: params.messages, estimatedTokens: 0 };
      },
      compact: (params) => delegateCompactionToRuntime(params),
    };
    const registry = createContextEngineRegistry();
    registry.registerContextEngine("probe", () => engine, { owner: "test:llm" });
    harness = await createServiceHarness({
      registry,
      config: { ...config, plugins: { slots: { contextEngine: "probe" } } },
      replies: [{ text: "ok" }, { text: "Done." }],
    });
    await harness.service.createSession({ sessionKey: "agent:main:main" });
    await harness.service.sendMessage("agent:main:main", "go");
    return seen;
  }

  it("offers the summary model, named; a model without prices reports no cost", async () => {
    const seen = await offered({ agents: { defaults: { compaction: { model: "fake/summary-model" } } } });
    expect(seen[0]?.ref).toBe("fake/summary-model");
    expect(seen[0]?.costUsd).toBeUndefined();
  });

  it("offers the chat model when no summary model is set, or the one set does not resolve", async () => {
    // The harness's chat model has prices: the call reports what it cost.
    const chat = await offered({});
    expect(chat[0]?.ref).toBe("fake/fake-model");
    expect(chat[0]?.costUsd).toBeGreaterThan(0);
    await harness?.cleanup();
    harness = undefined;
    const seen = await offered({ agents: { defaults: { compaction: { model: "nowhere/model" } } } });
    expect(seen[0]?.ref).toBe("fake/fake-model");
    const logged = (harness as { logger: { records: unknown[] } } | undefined)?.logger.records;
    expect(JSON.stringify(logged)).toContain("agents.defaults.compaction.model does not resolve");
  });
});
