/**
 * The edits `clew plugins` makes to a config object, as pure functions on a draft (see
 * `editClewConfig`). They touch only `plugins.*` keys of the plugin in question.
 */
import {
  type ClewConfig,
  type PluginSlotsConfig,
  type PluginsConfig,
  resetPluginSlotsToDefaults,
} from "@clew/core";
import { hasKind, type PluginManifest } from "./manifest.js";

export const CONTEXT_ENGINE_KIND = "context-engine";

export interface PluginSelection {
  /** True when the install put the plugin into `plugins.slots.contextEngine`. */
  selectedContextEngine: boolean;
  /** The slot's value before, when it held something else. */
  previousContextEngine?: string;
}

/**
 * After an install or link: enables the plugin, adds a linked folder to `plugins.load.paths`, and
 * selects a context-engine plugin in `plugins.slots.contextEngine` (the slot gets the plugin id,
 * as in OpenClaw, so the engine the plugin registers should use that id).
 */
export function applyInstalledPlugin(
  config: ClewConfig,
  manifest: Pick<PluginManifest, "id" | "kind">,
  options: { linkDir?: string } = {},
): PluginSelection {
  const plugins = pluginsOf(config);
  plugins.entries ??= {};
  plugins.entries[manifest.id] = { ...plugins.entries[manifest.id], enabled: true };
  if (options.linkDir !== undefined) {
    plugins.load ??= {};
    const paths = plugins.load.paths ?? [];
    if (!paths.includes(options.linkDir)) plugins.load.paths = [...paths, options.linkDir];
  }
  if (!hasKind(manifest, CONTEXT_ENGINE_KIND)) return { selectedContextEngine: false };
  const previous = plugins.slots?.contextEngine;
  plugins.slots = { ...plugins.slots, contextEngine: manifest.id };
  return previous === undefined || previous === manifest.id
    ? { selectedContextEngine: true }
    : { selectedContextEngine: true, previousContextEngine: previous };
}

export interface PluginRemoval {
  /** Slots that held the plugin and now fall back to their defaults (`contextEngine` → legacy). */
  resetSlots: Array<keyof PluginSlotsConfig>;
  removedLoadPaths: string[];
  removedEntry: boolean;
}

/**
 * After an uninstall: drops the plugin's entry, its allow/deny mentions and `loadPaths`, and
 * resets every slot it held by deleting the key, so the default stays implicit. Containers this
 * edit leaves empty are removed; everything else in the config is kept as it was.
 */
export function removePluginFromConfig(
  config: ClewConfig,
  pluginId: string,
  loadPaths: string[],
): PluginRemoval {
  const plugins = config.plugins;
  const removal: PluginRemoval = { resetSlots: [], removedLoadPaths: [], removedEntry: false };
  if (plugins === undefined) return removal;
  if (plugins.entries !== undefined && pluginId in plugins.entries) {
    delete plugins.entries[pluginId];
    removal.removedEntry = true;
    if (Object.keys(plugins.entries).length === 0) delete plugins.entries;
  }
  for (const list of ["allow", "deny"] as const) {
    const ids = plugins[list];
    if (ids === undefined || !ids.includes(pluginId)) continue;
    const kept = ids.filter((id) => id !== pluginId);
    if (kept.length === 0) delete plugins[list];
    else plugins[list] = kept;
  }
  removal.removedLoadPaths = removeLoadPaths(config, loadPaths);
  const slots = plugins.slots;
  if (slots !== undefined) {
    removal.resetSlots = (Object.keys(slots) as Array<keyof PluginSlotsConfig>).filter(
      (slot) => slots[slot] === pluginId,
    );
    const reset = resetPluginSlotsToDefaults(slots, pluginId);
    if (reset === undefined) delete plugins.slots;
    else plugins.slots = reset;
  }
  const changed =
    removal.removedEntry || removal.resetSlots.length > 0 || removal.removedLoadPaths.length > 0;
  if (changed && Object.keys(plugins).length === 0) delete config.plugins;
  return removal;
}

/** Removes `paths` from `plugins.load.paths` (and `load` when that empties it); returns those removed. */
export function removeLoadPaths(config: ClewConfig, paths: readonly string[]): string[] {
  const load = config.plugins?.load;
  if (load?.paths === undefined) return [];
  const removed = load.paths.filter((path) => paths.includes(path));
  if (removed.length === 0) return [];
  const kept = load.paths.filter((path) => !paths.includes(path));
  if (kept.length > 0) load.paths = kept;
  else delete load.paths;
  if (Object.keys(load).length === 0) delete config.plugins?.load;
  return removed;
}

/** Sets `plugins.entries.<id>.enabled`, keeping the slot: re-enabling restores the selection. */
export function setPluginEnabled(config: ClewConfig, pluginId: string, enabled: boolean): void {
  const plugins = pluginsOf(config);
  plugins.entries ??= {};
  plugins.entries[pluginId] = { ...plugins.entries[pluginId], enabled };
}

function pluginsOf(config: ClewConfig): PluginsConfig {
  config.plugins ??= {};
  return config.plugins;
}
