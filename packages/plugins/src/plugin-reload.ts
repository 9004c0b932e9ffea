import { ContextEngineRegistry } from "@clew/core";
import {
  type LoadedPlugin,
  type LoadPluginsOptions,
  loadPlugins,
  type PluginLoadReport,
  unregisterPlugin,
} from "./plugin-loader.js";

export interface PluginReloadResult {
  report: PluginLoadReport;
  /** Plugin ids listed now and not before. */
  added: string[];
  /** Plugin ids listed before and not now (uninstalled or unlinked). */
  removed: string[];
  /** Plugin ids in both whose version, folder, enabled or loaded state, or engines changed. */
  changed: string[];
  /** Engine ids dropped from the registry before loading again. */
  unregisteredEngineIds: string[];
}

/**
 * Reloads plugins after an install, uninstall or config change (the gateway's restart or reload
 * command): everything plugin owners registered is removed from the registry and the tool and
 * command sinks, then `loadPlugins` runs again with the new config. Engines that are registered
 * again get a fresh start (re-registration lifts their quarantine).
 *
 * It does not touch running engines: the caller then calls the host's `reload()`, which disposes
 * the old engine and resolves the slot again, so the next turn runs on the new selection while
 * existing sessions keep their history. Never rejects because of a plugin.
 */
export async function reloadPlugins(
  options: LoadPluginsOptions & { previous?: PluginLoadReport },
): Promise<PluginReloadResult> {
  const pluginIds = new Set(options.previous?.plugins.map((plugin) => plugin.id) ?? []);
  for (const registration of options.registry.list()) {
    const pluginId = ContextEngineRegistry.ownerPluginId(registration.owner);
    if (pluginId !== undefined) pluginIds.add(pluginId);
  }
  const unregisteredEngineIds = [...pluginIds].flatMap((pluginId) => unregisterPlugin(pluginId, options));
  const report = await loadPlugins(options);
  const before = new Map((options.previous?.plugins ?? []).map((plugin) => [plugin.id, plugin]));
  const after = new Map(report.plugins.map((plugin) => [plugin.id, plugin]));
  return {
    report,
    added: [...after.keys()].filter((id) => !before.has(id)),
    removed: [...before.keys()].filter((id) => !after.has(id)),
    changed: [...after.values()]
      .filter((plugin) => {
        const previous = before.get(plugin.id);
        return previous !== undefined && fingerprint(previous) !== fingerprint(plugin);
      })
      .map((plugin) => plugin.id),
    unregisteredEngineIds,
  };
}

function fingerprint(plugin: LoadedPlugin): string {
  return JSON.stringify([
    plugin.version,
    plugin.dir,
    plugin.enabled,
    plugin.loaded,
    plugin.record?.integrity,
    plugin.contextEngineIds,
  ]);
}
