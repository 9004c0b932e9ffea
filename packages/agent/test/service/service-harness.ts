import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type FakeProtocol, type FakeReply, scriptedReplies, startFakeProvider } from "@clew/agent/testing";
import { type ClewConfig, type ContextEngineRegistry, createTokenCounter, MemoryLogger } from "@clew/core";
import { LocalAgentService } from "../../src/service/local-agent-service.js";
import type { ToolRegistry } from "../../src/tools/tool.js";

/** A real LocalAgentService in a temp home, talking to a fake provider on loopback. */
export async function createServiceHarness(options: {
  replies: FakeReply[];
  protocol?: FakeProtocol;
  contextWindow?: number;
  /** The model's output limit (1,000 by default) and whether it reasons. */
  maxTokens?: number;
  reasoning?: boolean;
  config?: ClewConfig;
  registry?: ContextEngineRegistry;
  /** Plugin tools and tool factories, as the CLI passes what plugins registered. */
  extraTools?: ToolRegistry;
}) {
  const home = await mkdtemp(join(tmpdir(), "clew-agent-"));
  const chat = scriptedReplies(options.replies);
  const summaries: string[] = [];
  const fake = await startFakeProvider({
    protocol: options.protocol ?? "openai-completions",
    // Compaction summaries go to the same model: answer them apart so they do not use up the script.
    script: (request) => {
      if (JSON.stringify(request.body).includes("context summarization assistant")) {
        summaries.push("summary");
        return { text: "## Goal\nKeep answering the questions.\n\n## Progress\nAnswered earlier questions." };
      }
      return chat(request);
    },
  });
  const config: ClewConfig = {
    ...options.config,
    models: {
      providers: {
        fake: {
          api: options.protocol ?? "openai-completions",
          baseUrl: fake.baseUrl,
          models: [
            {
              id: "fake-model",
              contextWindow: options.contextWindow ?? 100_000,
              maxTokens: options.maxTokens ?? 1_000,
              ...(options.reasoning === undefined ? {} : { reasoning: options.reasoning }),
              cost: { input: 2, output: 10, cacheRead: 0.5, cacheWrite: 0 },
            },
          ],
        },
      },
    },
    agents: {
      ...options.config?.agents,
      defaults: { ...options.config?.agents?.defaults, model: "fake/fake-model" },
    },
  };
  const logger = new MemoryLogger();
  const service = new LocalAgentService({
    home,
    config,
    configPath: join(home, "clew.json"),
    env: {},
    logger,
    counter: await createTokenCounter(config),
    ...(options.registry === undefined ? {} : { registry: options.registry }),
    ...(options.extraTools === undefined ? {} : { extraTools: options.extraTools }),
  });
  return {
    home,
    fake,
    summaries,
    service,
    logger,
    async cleanup() {
      await service.close();
      await fake.close();
      await rm(home, { recursive: true, force: true });
    },
  };
}
