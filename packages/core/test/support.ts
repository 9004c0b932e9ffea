import {
  type AgentMessage,
  type AssistantMessage,
  type ClewConfig,
  ContextEngineHost,
  type ContextEngineHostOptions,
  type ContextEngineRegistry,
  charEstimateTokenCounter,
  createContextEngineRegistry,
  createInMemoryRuntimeCompactor,
  type HostModel,
  InMemorySessionStore,
  MemoryLogger,
  type ModelStepFunction,
  type ModelStepRequest,
  type UserMessage,
} from "../src/index.js";

export const testModel: HostModel = { id: "test-model", provider: "test", contextWindow: 100_000 };

export function userMessage(text: string, timestamp = 1): UserMessage {
  return { role: "user", content: text, timestamp };
}

export function assistantMessage(text: string, timestamp = 2): AssistantMessage {
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
    timestamp,
  };
}

/** A conversation of `turns` user/assistant pairs, each text about `chars` long. */
export function conversation(turns: number, chars = 40): AgentMessage[] {
  const messages: AgentMessage[] = [];
  for (let turn = 0; turn < turns; turn++) {
    messages.push(userMessage(`question ${turn} ${"q".repeat(chars)}`, turn * 2));
    messages.push(assistantMessage(`answer ${turn} ${"a".repeat(chars)}`, turn * 2 + 1));
  }
  return messages;
}

/** A model that answers every call with "reply N" and records what it was sent. */
export class EchoModel {
  readonly requests: ModelStepRequest[] = [];
  readonly step: ModelStepFunction = async (request) => {
    this.requests.push(request);
    return { messages: [assistantMessage(`reply ${this.requests.length}`)], done: true };
  };
}

export interface TestHost {
  host: ContextEngineHost;
  registry: ContextEngineRegistry;
  logger: MemoryLogger;
  sessions: InMemorySessionStore;
}

export function createTestHost(
  options: { config?: ClewConfig; registry?: ContextEngineRegistry } & Partial<ContextEngineHostOptions> = {},
): TestHost {
  const registry = options.registry ?? createContextEngineRegistry();
  const logger = new MemoryLogger();
  const sessions = new InMemorySessionStore();
  const host = new ContextEngineHost({
    runtimeCompaction: createInMemoryRuntimeCompactor({ tokenCounter: charEstimateTokenCounter }),
    ...options,
    registry,
    logger,
  });
  return { host, registry, logger, sessions };
}
