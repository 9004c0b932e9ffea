/**
 * The model settings of `clew.json`: the `models` section (providers and their models) and the
 * model fields of `agents` (`agents.defaults.model`, `agents.defaults.compaction.model`,
 * `agents.list.<agentId>.model`). Core loads the file as a plain object; this module checks these
 * fields and returns them typed.
 *
 * `readModelSettings` throws `ConfigError` listing every problem (dotted path and message), and
 * never throws for fields it does not own: other keys of `agents` belong to other features.
 */
import { ConfigError } from "@clew/core";

/** The wire APIs a provider entry may name (pi-ai's `api` values Clew supports). */
export const MODEL_APIS = [
  "openai-completions",
  "openai-responses",
  "anthropic-messages",
  "google-generative-ai",
] as const;

export type ModelApi = (typeof MODEL_APIS)[number];

/** Prices in dollars per million tokens. */
export interface ModelCostConfig {
  input: number;
  output: number;
  cacheRead?: number;
  cacheWrite?: number;
}

export interface ModelDefinitionConfig {
  id: string;
  name?: string;
  contextWindow?: number;
  maxTokens?: number;
  reasoning?: boolean;
  input?: Array<"text" | "image">;
  cost?: ModelCostConfig;
}

export interface ModelProviderConfig {
  api?: ModelApi;
  baseUrl?: string;
  /** Name of the environment variable that holds the API key (never the key itself). */
  apiKeyEnv?: string;
  headers?: Record<string, string>;
  models?: ModelDefinitionConfig[];
}

/** The checked model settings. */
export interface ModelSettings {
  providers: Record<string, ModelProviderConfig>;
  /** `agents.defaults.model`. */
  defaultModel?: string;
  /** `agents.defaults.compaction.model`. */
  compactionModel?: string;
  /** `agents.list.<agentId>.model`, by agent id. */
  agentModels: Record<string, string>;
}

type Problem = { path: string; message: string };
type PlainObject = Record<string, unknown>;

const PROVIDER_KEYS = new Set(["api", "baseUrl", "apiKeyEnv", "headers", "models"]);
const MODEL_KEYS = new Set(["id", "name", "contextWindow", "maxTokens", "reasoning", "input", "cost"]);
const COST_KEYS = new Set(["input", "output", "cacheRead", "cacheWrite"]);
const PROVIDER_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The loaded `clew.json` as a plain object (a `ClewConfig`). Typed loosely on purpose: these
 * fields are checked here at run time, and core's `ClewConfig` does not declare all of them.
 */
export type ModelConfigSource = Readonly<Record<string, unknown>>;

/** Reads and checks the model settings of `config`; `configPath` names the file in errors. */
export function readModelSettings(config: ModelConfigSource, configPath: string): ModelSettings {
  const problems: Problem[] = [];
  const settings: ModelSettings = {
    providers: readProviders(config.models, problems),
    agentModels: {},
  };
  readAgentModels(config.agents, settings, problems);
  if (problems.length > 0) throw new ConfigError(configPath, problems);
  return settings;
}

function isRecord(value: unknown): value is PlainObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function unknownKeys(value: PlainObject, known: Set<string>, path: string, problems: Problem[]): void {
  for (const key of Object.keys(value)) {
    if (!known.has(key)) problems.push({ path: `${path}.${key}`, message: "unknown key" });
  }
}

function readProviders(models: unknown, problems: Problem[]): Record<string, ModelProviderConfig> {
  if (models === undefined) return {};
  if (!isRecord(models)) {
    problems.push({ path: "models", message: "must be an object" });
    return {};
  }
  unknownKeys(models, new Set(["providers"]), "models", problems);
  if (models.providers === undefined) return {};
  if (!isRecord(models.providers)) {
    problems.push({ path: "models.providers", message: "must be an object keyed by provider name" });
    return {};
  }
  const providers: Record<string, ModelProviderConfig> = {};
  for (const [name, entry] of Object.entries(models.providers)) {
    const path = `models.providers.${name}`;
    if (!PROVIDER_NAME.test(name)) {
      problems.push({ path, message: 'provider names use letters, digits, ".", "_" or "-" (no "/")' });
      continue;
    }
    if (!isRecord(entry)) {
      problems.push({ path, message: "must be an object" });
      continue;
    }
    providers[name] = readProvider(entry, path, problems);
  }
  return providers;
}

function readProvider(entry: PlainObject, path: string, problems: Problem[]): ModelProviderConfig {
  unknownKeys(entry, PROVIDER_KEYS, path, problems);
  const provider: ModelProviderConfig = {};
  if (entry.api !== undefined) {
    if (MODEL_APIS.includes(entry.api as ModelApi)) provider.api = entry.api as ModelApi;
    else problems.push({ path: `${path}.api`, message: `must be one of ${MODEL_APIS.join(", ")}` });
  }
  if (entry.baseUrl !== undefined) {
    if (isHttpUrl(entry.baseUrl)) provider.baseUrl = entry.baseUrl;
    else
      problems.push({
        path: `${path}.baseUrl`,
        message: 'must be an http(s) URL, e.g. "http://127.0.0.1:11434/v1"',
      });
  }
  if (entry.apiKeyEnv !== undefined) {
    if (typeof entry.apiKeyEnv === "string" && ENV_NAME.test(entry.apiKeyEnv))
      provider.apiKeyEnv = entry.apiKeyEnv;
    else {
      problems.push({
        path: `${path}.apiKeyEnv`,
        message: "must be the NAME of an environment variable (letters, digits, _), not the key itself",
      });
    }
  }
  if (entry.headers !== undefined) {
    const headers = readHeaders(entry.headers, `${path}.headers`, problems);
    if (headers !== undefined) provider.headers = headers;
  }
  if (entry.models !== undefined) provider.models = readModelList(entry.models, `${path}.models`, problems);
  return provider;
}

function isHttpUrl(value: unknown): value is string {
  if (typeof value !== "string") return false;
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
}

function readHeaders(value: unknown, path: string, problems: Problem[]): Record<string, string> | undefined {
  if (!isRecord(value)) {
    problems.push({ path, message: "must be an object of header names to string values" });
    return undefined;
  }
  const headers: Record<string, string> = {};
  for (const [name, headerValue] of Object.entries(value)) {
    if (typeof headerValue === "string") headers[name] = headerValue;
    else problems.push({ path: `${path}.${name}`, message: "must be a string" });
  }
  return headers;
}

function readModelList(value: unknown, path: string, problems: Problem[]): ModelDefinitionConfig[] {
  if (!Array.isArray(value)) {
    problems.push({ path, message: "must be an array of model definitions" });
    return [];
  }
  const definitions: ModelDefinitionConfig[] = [];
  const seen = new Set<string>();
  value.forEach((entry, index) => {
    const definition = readModelDefinition(entry, `${path}.${index}`, problems);
    if (definition === undefined) return;
    if (seen.has(definition.id))
      problems.push({ path: `${path}.${index}.id`, message: `duplicate model id "${definition.id}"` });
    seen.add(definition.id);
    definitions.push(definition);
  });
  return definitions;
}

function readModelDefinition(
  entry: unknown,
  path: string,
  problems: Problem[],
): ModelDefinitionConfig | undefined {
  if (!isRecord(entry)) {
    problems.push({ path, message: "must be an object with an id" });
    return undefined;
  }
  unknownKeys(entry, MODEL_KEYS, path, problems);
  if (typeof entry.id !== "string" || entry.id.trim().length === 0) {
    problems.push({ path: `${path}.id`, message: "must be a non-empty string" });
    return undefined;
  }
  const definition: ModelDefinitionConfig = { id: entry.id };
  if (entry.name !== undefined) {
    if (typeof entry.name === "string") definition.name = entry.name;
    else problems.push({ path: `${path}.name`, message: "must be a string" });
  }
  for (const field of ["contextWindow", "maxTokens"] as const) {
    const fieldValue = entry[field];
    if (fieldValue === undefined) continue;
    if (Number.isInteger(fieldValue) && (fieldValue as number) >= 1) definition[field] = fieldValue as number;
    else problems.push({ path: `${path}.${field}`, message: "must be a positive integer (tokens)" });
  }
  if (entry.reasoning !== undefined) {
    if (typeof entry.reasoning === "boolean") definition.reasoning = entry.reasoning;
    else problems.push({ path: `${path}.reasoning`, message: "must be true or false" });
  }
  if (entry.input !== undefined) {
    const input = entry.input;
    const valid =
      Array.isArray(input) && input.length > 0 && input.every((kind) => kind === "text" || kind === "image");
    if (valid) definition.input = input as Array<"text" | "image">;
    else problems.push({ path: `${path}.input`, message: 'must be a non-empty array of "text" and "image"' });
  }
  if (entry.cost !== undefined) {
    const cost = readCost(entry.cost, `${path}.cost`, problems);
    if (cost !== undefined) definition.cost = cost;
  }
  return definition;
}

function readCost(value: unknown, path: string, problems: Problem[]): ModelCostConfig | undefined {
  if (!isRecord(value)) {
    problems.push({
      path,
      message: "must be an object: { input, output, cacheRead, cacheWrite } in $ per million tokens",
    });
    return undefined;
  }
  unknownKeys(value, COST_KEYS, path, problems);
  let valid = true;
  for (const field of COST_KEYS) {
    const price = value[field];
    const required = field === "input" || field === "output";
    if (price === undefined && !required) continue;
    if (typeof price !== "number" || !Number.isFinite(price) || price < 0) {
      problems.push({ path: `${path}.${field}`, message: "must be a number ≥ 0 ($ per million tokens)" });
      valid = false;
    }
  }
  return valid ? (value as unknown as ModelCostConfig) : undefined;
}

function readAgentModels(agents: unknown, settings: ModelSettings, problems: Problem[]): void {
  if (!isRecord(agents)) return;
  const defaults = agents.defaults;
  if (isRecord(defaults)) {
    const model = readModelRefField(defaults.model, "agents.defaults.model", problems);
    if (model !== undefined) settings.defaultModel = model;
    if (isRecord(defaults.compaction)) {
      const compaction = readModelRefField(
        defaults.compaction.model,
        "agents.defaults.compaction.model",
        problems,
      );
      if (compaction !== undefined) settings.compactionModel = compaction;
    }
  }
  if (agents.list === undefined) return;
  if (!isRecord(agents.list)) {
    problems.push({ path: "agents.list", message: "must be an object keyed by agent id" });
    return;
  }
  for (const [agentId, entry] of Object.entries(agents.list)) {
    if (!isRecord(entry)) continue;
    const model = readModelRefField(entry.model, `agents.list.${agentId}.model`, problems);
    if (model !== undefined) settings.agentModels[agentId] = model;
  }
}

function readModelRefField(value: unknown, path: string, problems: Problem[]): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value === "string" && isModelRef(value)) return value;
  problems.push({ path, message: 'must be "provider/model-id", e.g. "openai/gpt-4o-mini"' });
  return undefined;
}

const MODEL_REF = /^[^/\s]+\/\S+$/;

/** True for `provider/model-id`: both parts non-empty, no spaces (the id may contain slashes). */
export function isModelRef(value: string): boolean {
  return MODEL_REF.test(value);
}
