import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LocalAgentService, ToolRegistry } from "@clew/agent";
import { type FakeProtocol, type FakeScript, startFakeProvider } from "@clew/agent/testing";
import { type ClewConfig, createContextEngineRegistry, createTokenCounter, MemoryLogger } from "@clew/core";
import { loadPlugins } from "@clew/plugins";

/** This package's folder: linked as a plugin, as `clew plugins link` would. */
const LOSSLESS_PLUGIN_DIR = join(import.meta.dirname, "..", "..");

/**
 * A real LocalAgentService in a temp home with the lossless plugin linked and selected, loaded the
 * way the CLI loads plugins (engines into the registry, tools and tool factories into a
 * ToolRegistry), talking to a fake OpenAI-compatible provider that answers with `script`.
 */
export async function createLosslessAgent(
  script: FakeScript,
  options: {
    contextWindow?: number;
    maxTokens?: number;
    pluginConfig?: Record<string, unknown>;
    protocol?: FakeProtocol;
  } = {},
) {
  const home = await mkdtemp(join(tmpdir(), "clew-lossless-agent-"));
  const protocol = options.protocol ?? "openai-completions";
  const fake = await startFakeProvider({ protocol, script });
  const config: ClewConfig = {
    plugins: {
      load: { paths: [LOSSLESS_PLUGIN_DIR] },
      slots: { contextEngine: "lossless" },
      ...(options.pluginConfig === undefined
        ? {}
        : { entries: { lossless: { config: options.pluginConfig } } }),
    },
    models: {
      providers: {
        fake: {
          api: protocol,
          baseUrl: fake.baseUrl,
          models: [
            {
              id: "fake-model",
              contextWindow: options.contextWindow ?? 100_000,
              maxTokens: options.maxTokens ?? 1_000,
            },
          ],
        },
      },
    },
    agents: { defaults: { model: "fake/fake-model" } },
  };
  const logger = new MemoryLogger();
  const registry = createContextEngineRegistry();
  const tools = new ToolRegistry();
  const report = await loadPlugins({ home, config, registry, tools, logger });
  const service = new LocalAgentService({
    home,
    config,
    configPath: join(home, "clew.json"),
    env: {},
    logger,
    counter: await createTokenCounter(config),
    registry,
    extraTools: tools,
  });
  return {
    home,
    fake,
    service,
    logger,
    report,
    async cleanup() {
      await service.close();
      await fake.close();
      await rm(home, { recursive: true, force: true });
    },
  };
}
