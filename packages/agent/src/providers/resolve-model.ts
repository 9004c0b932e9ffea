/**
 * `resolveModel`: from `clew.json` and the environment to one pi `Model` with its API key.
 *
 * Which model: for chat, the session's model (`/model`, `--model`) > `agents.list.<agentId>.model`
 * > `agents.defaults.model`; for summaries, `agents.defaults.compaction.model` > the chat model.
 * Model fields: pi-ai's catalog entry (built-in providers) or the defaults below, then the
 * provider entry (`api`, `baseUrl`, `headers`), then the configured model definition.
 * API key: the variable named by `apiKeyEnv`, else the built-in provider's variables; servers on
 * loopback may have none.
 */
import { ModelConfigError } from "@clew/core";
import type { Api, Model } from "@mariozechner/pi-ai";
import {
  BUILT_IN_PROVIDERS,
  type BuiltInProvider,
  findBuiltInProvider,
  findCatalogModel,
} from "./built-in-providers.js";
import {
  isModelRef,
  type ModelConfigSource,
  type ModelProviderConfig,
  type ModelSettings,
  readModelSettings,
} from "./model-config.js";

/** Used for models neither pi-ai's catalog nor the config describes. */
export const DEFAULT_CONTEXT_WINDOW = 128_000;
export const DEFAULT_MAX_TOKENS = 8_192;

export type ModelPurpose = "chat" | "summary";

export interface ResolveModelOptions {
  agentId: string;
  /** The session's own choice (`/model`, `--model`), `provider/model-id`. */
  sessionModel?: string;
  purpose: ModelPurpose;
  /** Where API keys are read (usually `process.env`). */
  env: Readonly<Record<string, string | undefined>>;
  /** The config file, named in error messages. Default `clew.json`. */
  configPath?: string;
}

export interface ResolvedModel {
  /** `provider/model-id`. */
  ref: string;
  model: Model<Api>;
  /** `undefined` only for servers on loopback that need no key. */
  apiKey: string | undefined;
  /** The model's context window in tokens. */
  contextWindow: number;
}

interface ModelChoice {
  ref: string;
  /** The setting the ref came from, for messages. */
  source: string;
}

/**
 * Resolves the model for `purpose`. Throws `ConfigError` for a malformed model section and
 * `ModelConfigError` (naming the setting or variable to set) when no model is configured, a ref
 * is not `provider/model-id`, the provider is unknown or incomplete, or the API key is missing.
 * Never reads `process.env` itself.
 */
export function resolveModel(config: ModelConfigSource, options: ResolveModelOptions): ResolvedModel {
  const configPath = options.configPath ?? "clew.json";
  const settings = readModelSettings(config, configPath);
  const choice = chooseModel(settings, options, configPath);
  const slash = choice.ref.indexOf("/");
  const providerName = choice.ref.slice(0, slash);
  const modelId = choice.ref.slice(slash + 1);
  const providerConfig = settings.providers[providerName];
  const builtIn = findBuiltInProvider(providerName);
  if (providerConfig === undefined && builtIn === undefined) {
    throw unknownProviderError(providerName, choice, settings, configPath);
  }
  const model = buildModel({ providerName, modelId, providerConfig, builtIn, configPath });
  const apiKey = resolveApiKey({ choice, model, providerConfig, builtIn, env: options.env, configPath });
  return { ref: choice.ref, model, apiKey, contextWindow: model.contextWindow };
}

function chooseModel(settings: ModelSettings, options: ResolveModelOptions, configPath: string): ModelChoice {
  if (options.purpose === "summary" && settings.compactionModel !== undefined) {
    return { ref: settings.compactionModel, source: "agents.defaults.compaction.model" };
  }
  if (options.sessionModel !== undefined) {
    if (!isModelRef(options.sessionModel)) {
      throw new ModelConfigError(
        `Model "${options.sessionModel}" (the session's model, from /model or --model) must be written as "provider/model-id", for example "openai/gpt-4o-mini".`,
        "--model",
      );
    }
    return { ref: options.sessionModel, source: "the session's model (/model or --model)" };
  }
  const agentModel = settings.agentModels[options.agentId];
  if (agentModel !== undefined) return { ref: agentModel, source: `agents.list.${options.agentId}.model` };
  if (settings.defaultModel !== undefined)
    return { ref: settings.defaultModel, source: "agents.defaults.model" };
  throw new ModelConfigError(
    `No model is configured. Set agents.defaults.model in ${configPath} (for example "openai/gpt-4o-mini"), or pass --model.`,
    "agents.defaults.model",
  );
}

function unknownProviderError(
  providerName: string,
  choice: ModelChoice,
  settings: ModelSettings,
  configPath: string,
): ModelConfigError {
  const known = [...new Set([...BUILT_IN_PROVIDERS, ...Object.keys(settings.providers)])].sort();
  return new ModelConfigError(
    `Unknown model provider "${providerName}" in "${choice.ref}" (from ${choice.source}). Known providers: ${known.join(", ")}. ` +
      `To add one, set models.providers.${providerName}.api and models.providers.${providerName}.baseUrl in ${configPath}.`,
    `models.providers.${providerName}`,
  );
}

interface ModelSources {
  providerName: string;
  modelId: string;
  providerConfig: ModelProviderConfig | undefined;
  builtIn: BuiltInProvider | undefined;
  configPath: string;
}

function buildModel(sources: ModelSources): Model<Api> {
  const { providerName, modelId, providerConfig, builtIn, configPath } = sources;
  const catalog = builtIn === undefined ? undefined : findCatalogModel(builtIn.name, modelId);
  const definition = providerConfig?.models?.find((candidate) => candidate.id === modelId);
  const setting = `models.providers.${providerName}`;
  const api = providerConfig?.api ?? catalog?.api ?? builtIn?.api;
  if (api === undefined) {
    throw new ModelConfigError(
      `Model provider "${providerName}" needs ${setting}.api in ${configPath} (one of openai-completions, openai-responses, anthropic-messages, google-generative-ai).`,
      `${setting}.api`,
    );
  }
  const baseUrl = providerConfig?.baseUrl ?? catalog?.baseUrl ?? builtIn?.baseUrl;
  if (baseUrl === undefined) {
    throw new ModelConfigError(
      `Model provider "${providerName}" needs ${setting}.baseUrl in ${configPath} (for example "http://127.0.0.1:11434/v1").`,
      `${setting}.baseUrl`,
    );
  }
  const model: Model<Api> = {
    id: modelId,
    name: definition?.name ?? catalog?.name ?? modelId,
    api,
    provider: providerName,
    baseUrl,
    reasoning: definition?.reasoning ?? catalog?.reasoning ?? false,
    input: definition?.input ?? catalog?.input ?? ["text"],
    cost: definition?.cost
      ? { cacheRead: 0, cacheWrite: 0, ...definition.cost }
      : (catalog?.cost ?? { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }),
    contextWindow: definition?.contextWindow ?? catalog?.contextWindow ?? DEFAULT_CONTEXT_WINDOW,
    maxTokens: definition?.maxTokens ?? catalog?.maxTokens ?? DEFAULT_MAX_TOKENS,
  };
  const headers = { ...catalog?.headers, ...providerConfig?.headers };
  if (Object.keys(headers).length > 0) model.headers = headers;
  // Compat flags describe the catalog's API; they would mislead another one.
  if (catalog?.compat !== undefined && catalog.api === api) model.compat = catalog.compat;
  if (catalog?.thinkingLevelMap !== undefined) model.thinkingLevelMap = catalog.thinkingLevelMap;
  return model;
}

interface KeySources {
  choice: ModelChoice;
  model: Model<Api>;
  providerConfig: ModelProviderConfig | undefined;
  builtIn: BuiltInProvider | undefined;
  env: Readonly<Record<string, string | undefined>>;
  configPath: string;
}

function resolveApiKey(sources: KeySources): string | undefined {
  const { choice, model, providerConfig, builtIn, env, configPath } = sources;
  const names =
    providerConfig?.apiKeyEnv !== undefined ? [providerConfig.apiKeyEnv] : (builtIn?.apiKeyEnvVars ?? []);
  for (const name of names) {
    const value = env[name]?.trim();
    if (value) return value;
  }
  if (isLoopbackUrl(model.baseUrl)) return undefined;
  const setting = `models.providers.${model.provider}.apiKeyEnv`;
  const prefix = `Model "${choice.ref}" needs an API key:`;
  if (providerConfig?.apiKeyEnv !== undefined) {
    throw new ModelConfigError(
      `${prefix} set the environment variable ${providerConfig.apiKeyEnv} (named by ${setting} in ${configPath}).`,
      providerConfig.apiKeyEnv,
    );
  }
  if (builtIn !== undefined) {
    throw new ModelConfigError(
      `${prefix} set the environment variable ${builtIn.primaryApiKeyEnvVar} (${setting} names another).`,
      builtIn.primaryApiKeyEnvVar,
    );
  }
  throw new ModelConfigError(
    `${prefix} set ${setting} in ${configPath} to the name of the environment variable that holds it (only servers on loopback — localhost, 127.0.0.1, ::1 — may go without a key).`,
    setting,
  );
}

/** True when `baseUrl` points at this machine (localhost, 127.0.0.0/8, ::1). */
export function isLoopbackUrl(baseUrl: string): boolean {
  let hostname: string;
  try {
    hostname = new URL(baseUrl).hostname.toLowerCase();
  } catch {
    return false;
  }
  if (hostname === "localhost" || hostname.endsWith(".localhost")) return true;
  if (hostname === "[::1]") return true;
  return /^127(?:\.\d{1,3}){3}$/.test(hostname);
}
