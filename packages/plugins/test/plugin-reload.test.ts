import {
  type AgentMessage,
  type ClewConfig,
  ContextEngineHost,
  charEstimateTokenCounter,
  createContextEngineRegistry,
  createInMemoryRuntimeCompactor,
  InMemorySessionStore,
  loadConfig,
  MemoryLogger,
  type ModelStepFunction,
  type ModelStepRequest,
} from "@clew/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadPlugins, PluginStore, reloadPlugins } from "../src/index.js";
import { CLEW_ENGINE_FIXTURE, createTempHome } from "./support.js";

let temp: Awaited<ReturnType<typeof createTempHome>>;
beforeEach(async () => {
  temp = await createTempHome("clew-reload-");
});
afterEach(async () => {
  await temp.cleanup();
});

function reply(text: string): AgentMessage {
  return {
    role: "assistant",
    content: [{ type: "text", text }],
    api: "openai-completions",
    provider: "test",
    model: "test-model",
    usage: {
      input: 0,
      output: 0,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: 0,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
    },
    stopReason: "stop",
    timestamp: 2,
  };
}

describe("reloadPlugins with the host's reload", () => {
  it("switches engines on install, disable and uninstall while the session keeps its history", async () => {
    const registry = createContextEngineRegistry();
    const logger = new MemoryLogger();
    const readConfig = async (): Promise<ClewConfig> => (await loadConfig(temp.home)).config;
    let config = await readConfig();
    let report = await loadPlugins({ home: temp.home, config, registry, logger });
    const host = new ContextEngineHost({
      registry,
      config,
      logger,
      runtimeCompaction: createInMemoryRuntimeCompactor({ tokenCounter: charEstimateTokenCounter }),
    });
    const session = new InMemorySessionStore().open({ sessionId: "s1" });
    const requests: ModelStepRequest[] = [];
    const callModel: ModelStepFunction = async (request) => {
      requests.push(request);
      return { messages: [reply(`reply ${requests.length}`)], done: true };
    };
    const model = { id: "test-model", provider: "test", contextWindow: 100_000 };
    const turn = async (prompt: string) =>
      (await host.runTurn({ session, prompt, systemPrompt: "base", model, callModel })).engineId;
    const reload = async () => {
      config = await readConfig();
      const result = await reloadPlugins({ home: temp.home, config, registry, logger, previous: report });
      report = result.report;
      await host.reload(config);
      return result;
    };
    const store = new PluginStore({ home: temp.home });

    expect(await turn("one")).toBe("legacy");
    await store.link(CLEW_ENGINE_FIXTURE);
    expect(await reload()).toMatchObject({ added: ["fixture-engine"], removed: [], changed: [] });
    expect(await turn("two")).toBe("fixture-engine");
    expect(requests[1]?.systemPrompt).toBe("[engine fixture]\n\nbase");
    expect(requests[1]?.messages).toHaveLength(3);

    await store.setEnabled("fixture-engine", false);
    expect(await reload()).toMatchObject({
      added: [],
      changed: ["fixture-engine"],
      unregisteredEngineIds: ["fixture-engine"],
    });
    expect(logger.messages("info")).toContain("[fixture-engine] fixture engine disposed");
    expect(await turn("three")).toBe("legacy");

    await store.setEnabled("fixture-engine", true);
    await reload();
    expect(await turn("four")).toBe("fixture-engine");
    await store.uninstall("fixture-engine");
    expect(await reload()).toMatchObject({
      removed: ["fixture-engine"],
      unregisteredEngineIds: ["fixture-engine"],
    });
    expect(registry.ids()).toEqual(["legacy"]);
    expect(await turn("five")).toBe("legacy");
    expect((await session.messages()).map((message) => message.role)).toEqual([
      ...Array.from({ length: 5 }, () => ["user", "assistant"]).flat(),
    ]);
    await host.dispose();
  });
});
