import { isPluginEnabled } from "../config/plugin-state.js";
import type { ClewConfig } from "../config/types.js";
import { ContextEngineRegistry, DEFAULT_CONTEXT_ENGINE_ID } from "./registry.js";

export interface ContextEngineSelection {
  /** The slot value after normalisation, or undefined when the slot selects the default. */
  configuredId: string | undefined;
  /** The id the process path should resolve. */
  selectedId: string;
  source: "configured" | "default";
  /** Why the configured id is not selected, when it is not. */
  reason?: "plugin-disabled";
}

/** Trims the slot; unset, empty and "none" (any case) select the default engine. */
export function normalizeContextEngineSlot(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  const trimmed = value.trim();
  if (trimmed.length === 0 || trimmed.toLowerCase() === "none") return undefined;
  return trimmed;
}

/**
 * Which engine config selects. A disabled, denied or globally-off plugin selects `legacy`
 * silently: no warning, no quarantine, and the slot value is kept so re-enabling restores it.
 * The owner plugin's state decides when a plugin registered the engine; otherwise the engine id
 * is taken as the plugin id.
 */
export function selectContextEngine(
  config: ClewConfig | undefined,
  registry: ContextEngineRegistry,
): ContextEngineSelection {
  const configuredId = normalizeContextEngineSlot(config?.plugins?.slots?.contextEngine);
  if (configuredId === undefined || configuredId === DEFAULT_CONTEXT_ENGINE_ID) {
    return { configuredId, selectedId: DEFAULT_CONTEXT_ENGINE_ID, source: "default" };
  }
  const owner = registry.get(configuredId)?.owner;
  const pluginId =
    ContextEngineRegistry.ownerPluginId(owner) ?? (owner === undefined ? configuredId : undefined);
  if (pluginId !== undefined && !isPluginEnabled(config, pluginId)) {
    return {
      configuredId,
      selectedId: DEFAULT_CONTEXT_ENGINE_ID,
      source: "default",
      reason: "plugin-disabled",
    };
  }
  return { configuredId, selectedId: configuredId, source: "configured" };
}
