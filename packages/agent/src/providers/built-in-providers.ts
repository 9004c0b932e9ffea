/**
 * Providers that work without a `models.providers` entry: their models, wire API, base URL and
 * prices come from pi-ai's catalog, their API key from the environment variables pi-ai reads.
 */
import { type Api, getModel, getModels, type KnownProvider, type Model } from "@mariozechner/pi-ai";

export const BUILT_IN_PROVIDERS = ["anthropic", "google", "openai", "openrouter"] as const;

export type BuiltInProviderName = (typeof BUILT_IN_PROVIDERS)[number];

export interface BuiltInProvider {
  name: BuiltInProviderName;
  /** Variables holding the key, in pi-ai's lookup order (the first one set wins). */
  apiKeyEnvVars: readonly string[];
  /** The variable to name in messages. */
  primaryApiKeyEnvVar: string;
  /** Wire API and base URL of the provider's catalog models, for model ids the catalog lacks. */
  api: Api;
  baseUrl: string;
}

/** pi-ai's `getEnvApiKey` variable names for these providers (it reads only `process.env`). */
const API_KEY_ENV_VARS: Record<BuiltInProviderName, { lookup: readonly string[]; primary: string }> = {
  anthropic: { lookup: ["ANTHROPIC_OAUTH_TOKEN", "ANTHROPIC_API_KEY"], primary: "ANTHROPIC_API_KEY" },
  google: { lookup: ["GEMINI_API_KEY"], primary: "GEMINI_API_KEY" },
  openai: { lookup: ["OPENAI_API_KEY"], primary: "OPENAI_API_KEY" },
  openrouter: { lookup: ["OPENROUTER_API_KEY"], primary: "OPENROUTER_API_KEY" },
};

/** The built-in provider called `name`, or `undefined`. */
export function findBuiltInProvider(name: string): BuiltInProvider | undefined {
  if (!(BUILT_IN_PROVIDERS as readonly string[]).includes(name)) return undefined;
  const providerName = name as BuiltInProviderName;
  const sample = getModels(providerName as KnownProvider)[0];
  if (sample === undefined) return undefined;
  const envVars = API_KEY_ENV_VARS[providerName];
  return {
    name: providerName,
    apiKeyEnvVars: envVars.lookup,
    primaryApiKeyEnvVar: envVars.primary,
    api: sample.api,
    baseUrl: sample.baseUrl,
  };
}

/** pi-ai's catalog entry for `provider/modelId`, or `undefined`. */
export function findCatalogModel(provider: BuiltInProviderName, modelId: string): Model<Api> | undefined {
  const lookup = getModel as (provider: string, modelId: string) => Model<Api> | undefined;
  return lookup(provider, modelId);
}
