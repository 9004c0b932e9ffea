import { createLegacyContextEngine } from "./legacy/legacy-engine.js";
import { CORE_OWNER, ContextEngineRegistry, DEFAULT_CONTEXT_ENGINE_ID } from "./registry.js";

/** A registry with the built-in `legacy` engine registered by core. */
export function createContextEngineRegistry(): ContextEngineRegistry {
  const registry = new ContextEngineRegistry();
  registry.registerContextEngine(DEFAULT_CONTEXT_ENGINE_ID, async () => createLegacyContextEngine(), {
    owner: CORE_OWNER,
    allowSameOwnerRefresh: true,
  });
  return registry;
}
