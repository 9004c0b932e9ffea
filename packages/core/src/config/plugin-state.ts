import type { ClewConfig, PluginSlotsConfig } from "./types.js";

/**
 * Whether config lets a plugin run. Used by engine selection: a disabled or denied plugin selects
 * `legacy` silently and keeps the slot value, so re-enabling it restores the choice.
 */
export function isPluginEnabled(config: ClewConfig | undefined, pluginId: string): boolean {
  const plugins = config?.plugins;
  if (plugins === undefined) return true;
  if (plugins.enabled === false) return false;
  if (plugins.deny?.includes(pluginId)) return false;
  if (plugins.allow !== undefined && plugins.allow.length > 0 && !plugins.allow.includes(pluginId))
    return false;
  return plugins.entries?.[pluginId]?.enabled !== false;
}

/**
 * Slots with every slot held by `pluginId` removed, so each falls back to its implicit default
 * (`legacy` for the context engine). Returns the same object when the plugin holds no slot and
 * `undefined` when no slot is left, so callers can drop an empty `slots` key.
 */
export function resetPluginSlotsToDefaults(
  slots: PluginSlotsConfig | undefined,
  pluginId: string,
): PluginSlotsConfig | undefined {
  if (slots === undefined) return undefined;
  const held = Object.entries(slots).filter(([, value]) => value === pluginId);
  if (held.length === 0) return slots;
  const kept = Object.fromEntries(Object.entries(slots).filter(([, value]) => value !== pluginId));
  return Object.keys(kept).length === 0 ? undefined : (kept as PluginSlotsConfig);
}
