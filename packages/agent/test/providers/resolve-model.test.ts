import { ConfigError, ModelConfigError } from "@clew/core";
import { getEnvApiKey } from "@mariozechner/pi-ai";
import { afterEach, describe, expect, it, vi } from "vitest";
import { BUILT_IN_PROVIDERS, findBuiltInProvider } from "../../src/providers/built-in-providers.js";
import { isLoopbackUrl, type ResolveModelOptions, resolveModel } from "../../src/providers/resolve-model.js";

const CONFIG_PATH = "/home/user/.clew/clew.json";
const KEYS = {
  OPENAI_API_KEY: "sk-openai",
  ANTHROPIC_API_KEY: "sk-ant",
  GEMINI_API_KEY: "gm",
  OPENROUTER_API_KEY: "or",
};

function chat(overrides: Partial<ResolveModelOptions> = {}): ResolveModelOptions {
  return { agentId: "main", purpose: "chat", env: KEYS, configPath: CONFIG_PATH, ...overrides };
}

const layered = {
  agents: {
    defaults: { model: "openai/gpt-4o-mini", compaction: { model: "anthropic/claude-3-5-haiku-latest" } },
    list: { coder: { model: "anthropic/claude-sonnet-4-5" }, helper: { tools: ["read"] } },
  },
};

function errorOf(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  throw new Error("expected the call to throw");
}

describe("resolveModel: which model", () => {
  it("prefers the session model, then the agent's model, then the default", () => {
    expect(resolveModel(layered, chat({ agentId: "coder", sessionModel: "openai/gpt-4o" })).ref).toBe(
      "openai/gpt-4o",
    );
    expect(resolveModel(layered, chat({ agentId: "coder" })).ref).toBe("anthropic/claude-sonnet-4-5");
    expect(resolveModel(layered, chat({ agentId: "helper" })).ref).toBe("openai/gpt-4o-mini");
  });

  it("uses the compaction model for summaries, and the chat model when none is set", () => {
    const summary = resolveModel(
      layered,
      chat({ agentId: "coder", sessionModel: "openai/gpt-4o", purpose: "summary" }),
    );
    expect(summary.ref).toBe("anthropic/claude-3-5-haiku-latest");

    const withoutCompaction = { agents: { ...layered.agents, defaults: { model: "openai/gpt-4o-mini" } } };
    const fallback = resolveModel(withoutCompaction, chat({ agentId: "coder", purpose: "summary" }));
    expect(fallback.ref).toBe("anthropic/claude-sonnet-4-5");
  });

  it("takes a built-in model from pi-ai's catalog with its key from the environment", () => {
    const resolved = resolveModel(layered, chat());
    expect(resolved.apiKey).toBe("sk-openai");
    expect(resolved.contextWindow).toBe(128_000);
    expect(resolved.model).toMatchObject({
      id: "gpt-4o-mini",
      provider: "openai",
      api: "openai-responses",
      baseUrl: "https://api.openai.com/v1",
      cost: { input: 0.15, output: 0.6 },
    });
  });

  it("gives a model the catalog lacks the provider's API and the default window and output cap", () => {
    const resolved = resolveModel({ agents: { defaults: { model: "openai/gpt-9-preview" } } }, chat());
    expect(resolved.model).toMatchObject({
      api: "openai-responses",
      contextWindow: 128_000,
      maxTokens: 8_192,
    });
    expect(resolved.model.cost).toEqual({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0 });
  });

  it("keeps the slashes of an OpenRouter model id", () => {
    const resolved = resolveModel(
      { agents: { defaults: { model: "openrouter/anthropic/claude-3.5-haiku" } } },
      chat(),
    );
    expect(resolved.model).toMatchObject({
      provider: "openrouter",
      id: "anthropic/claude-3.5-haiku",
      api: "openai-completions",
    });
  });

  it("resolves a local OpenAI-compatible provider without a key and applies its model definitions", () => {
    const config = {
      models: {
        providers: {
          ollama: {
            api: "openai-completions",
            baseUrl: "http://127.0.0.1:11434/v1",
            headers: { "x-tenant": "lab" },
            models: [
              { id: "qwen3:8b", contextWindow: 32_768, maxTokens: 4_096, cost: { input: 0, output: 0 } },
            ],
          },
        },
      },
      agents: { defaults: { model: "ollama/llama3.2" } },
    };
    const unlisted = resolveModel(config, chat({ env: {} }));
    expect(unlisted).toMatchObject({ ref: "ollama/llama3.2", apiKey: undefined, contextWindow: 128_000 });
    expect(unlisted.model).toMatchObject({
      api: "openai-completions",
      baseUrl: "http://127.0.0.1:11434/v1",
      maxTokens: 8_192,
    });
    expect(unlisted.model.headers).toEqual({ "x-tenant": "lab" });

    const listed = resolveModel(config, chat({ env: {}, sessionModel: "ollama/qwen3:8b" }));
    expect(listed.contextWindow).toBe(32_768);
    expect(listed.model.maxTokens).toBe(4_096);
    expect(listed.model.cost).toEqual({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0 });
  });

  it("reads the key from the variable apiKeyEnv names, also for built-in providers", () => {
    const config = {
      models: {
        providers: { openai: { apiKeyEnv: "WORK_OPENAI_KEY", baseUrl: "https://proxy.example.com/v1" } },
      },
      agents: { defaults: { model: "openai/gpt-4o-mini" } },
    };
    const resolved = resolveModel(
      config,
      chat({ env: { OPENAI_API_KEY: "personal", WORK_OPENAI_KEY: "work" } }),
    );
    expect(resolved.apiKey).toBe("work");
    expect(resolved.model.baseUrl).toBe("https://proxy.example.com/v1");
  });
});

describe("resolveModel: errors name what to set", () => {
  it("asks for agents.defaults.model when no model is configured", () => {
    const error = errorOf(() => resolveModel({}, chat()));
    expect(error).toBeInstanceOf(ModelConfigError);
    expect((error as ModelConfigError).message).toBe(
      `No model is configured. Set agents.defaults.model in ${CONFIG_PATH} (for example "openai/gpt-4o-mini"), or pass --model.`,
    );
    expect((error as ModelConfigError).setting).toBe("agents.defaults.model");
  });

  it("names the built-in provider's environment variable when the key is missing", () => {
    const error = errorOf(() => resolveModel({}, chat({ sessionModel: "openai/gpt-4o", env: {} })));
    expect((error as ModelConfigError).message).toBe(
      'Model "openai/gpt-4o" needs an API key: set the environment variable OPENAI_API_KEY (models.providers.openai.apiKeyEnv names another).',
    );
    expect((error as ModelConfigError).setting).toBe("OPENAI_API_KEY");
  });

  it("names the variable apiKeyEnv points to when it is empty", () => {
    const config = {
      models: {
        providers: {
          groq: {
            api: "openai-completions",
            baseUrl: "https://api.groq.com/openai/v1",
            apiKeyEnv: "GROQ_KEY",
          },
        },
      },
    };
    const error = errorOf(() =>
      resolveModel(config, chat({ sessionModel: "groq/llama-3.3-70b", env: { GROQ_KEY: " " } })),
    );
    expect((error as ModelConfigError).message).toBe(
      `Model "groq/llama-3.3-70b" needs an API key: set the environment variable GROQ_KEY (named by models.providers.groq.apiKeyEnv in ${CONFIG_PATH}).`,
    );
  });

  it("asks a remote custom provider for apiKeyEnv", () => {
    const config = {
      models: { providers: { vllm: { api: "openai-completions", baseUrl: "https://gpu.example.com/v1" } } },
    };
    const error = errorOf(() => resolveModel(config, chat({ sessionModel: "vllm/qwen" })));
    expect((error as ModelConfigError).message).toContain(
      `Model "vllm/qwen" needs an API key: set models.providers.vllm.apiKeyEnv in ${CONFIG_PATH}`,
    );
    expect((error as ModelConfigError).setting).toBe("models.providers.vllm.apiKeyEnv");
  });

  it("lists the known providers for an unknown one", () => {
    const config = {
      models: { providers: { ollama: { api: "openai-completions", baseUrl: "http://localhost:11434/v1" } } },
    };
    const error = errorOf(() => resolveModel(config, chat({ sessionModel: "mistrall/large" })));
    expect((error as ModelConfigError).message).toBe(
      'Unknown model provider "mistrall" in "mistrall/large" (from the session\'s model (/model or --model)). ' +
        "Known providers: anthropic, google, ollama, openai, openrouter. " +
        `To add one, set models.providers.mistrall.api and models.providers.mistrall.baseUrl in ${CONFIG_PATH}.`,
    );
  });

  it("asks a custom provider for its api and baseUrl", () => {
    const withoutApi = { models: { providers: { lab: { baseUrl: "http://127.0.0.1:8000/v1" } } } };
    expect(errorOf(() => resolveModel(withoutApi, chat({ sessionModel: "lab/m" })))).toMatchObject({
      setting: "models.providers.lab.api",
      message: expect.stringContaining(`needs models.providers.lab.api in ${CONFIG_PATH}`),
    });
    const withoutUrl = { models: { providers: { lab: { api: "openai-completions" } } } };
    expect(errorOf(() => resolveModel(withoutUrl, chat({ sessionModel: "lab/m" })))).toMatchObject({
      setting: "models.providers.lab.baseUrl",
      message: expect.stringContaining(`needs models.providers.lab.baseUrl in ${CONFIG_PATH}`),
    });
  });

  it("rejects a session model that is not provider/model-id", () => {
    const error = errorOf(() => resolveModel(layered, chat({ sessionModel: "gpt-4o" })));
    expect((error as ModelConfigError).message).toContain(
      'Model "gpt-4o" (the session\'s model, from /model or --model) must be written as "provider/model-id"',
    );
  });

  it("lists every problem of the models section with its path", () => {
    const config = {
      models: {
        providers: {
          lab: {
            api: "openai-chat",
            baseUrl: "127.0.0.1:8000",
            apiKeyEnv: "sk-live-123",
            models: [{ id: "m", contextWindow: 0, cost: { input: "cheap", output: 1 } }, { name: "no id" }],
            timeout: 5,
          },
        },
      },
      agents: { defaults: { model: "gpt-4o" } },
    };
    const error = errorOf(() => resolveModel(config, chat()));
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).file).toBe(CONFIG_PATH);
    expect((error as ConfigError).problems.map((problem) => problem.path)).toEqual([
      "models.providers.lab.timeout",
      "models.providers.lab.api",
      "models.providers.lab.baseUrl",
      "models.providers.lab.apiKeyEnv",
      "models.providers.lab.models.0.contextWindow",
      "models.providers.lab.models.0.cost.input",
      "models.providers.lab.models.1.id",
      "agents.defaults.model",
    ]);
    expect((error as ConfigError).message).toContain("not the key itself");
  });
});

describe("built-in providers", () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it("read the same environment variables as pi-ai's getEnvApiKey", () => {
    for (const name of BUILT_IN_PROVIDERS) {
      const provider = findBuiltInProvider(name);
      expect(provider, name).toBeDefined();
      for (const variable of provider?.apiKeyEnvVars ?? []) vi.stubEnv(variable, `${variable}-value`);
      const expected = getEnvApiKey(name);
      const resolved = resolveModel({}, chat({ sessionModel: `${name}/any-model`, env: process.env }));
      expect(resolved.apiKey, name).toBe(expected);
      vi.unstubAllEnvs();
    }
  });
});

describe("isLoopbackUrl", () => {
  it("accepts this machine's addresses only", () => {
    for (const url of [
      "http://localhost:11434/v1",
      "http://127.0.0.1:8080",
      "http://127.1.2.3",
      "http://[::1]:8000/v1",
    ]) {
      expect(isLoopbackUrl(url), url).toBe(true);
    }
    for (const url of [
      "http://192.168.1.5:11434",
      "https://api.openai.com/v1",
      "http://127.0.0.1.example.com",
      "nonsense",
    ]) {
      expect(isLoopbackUrl(url), url).toBe(false);
    }
  });
});
