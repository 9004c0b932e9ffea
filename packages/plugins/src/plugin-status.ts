import {
  type ClewConfig,
  createContextEngineRegistry,
  type PluginSlotsConfig,
  silentLogger,
} from "@clew/core";
import { type LoadedPlugin, loadPlugins } from "./plugin-loader.js";

export interface PluginStatus extends LoadedPlugin {
  /** Slots naming this plugin or one of its engines (`contextEngine`, `memory`). */
  slots: Array<keyof PluginSlotsConfig>;
  /** `plugins.entries.<id>.config` as configured. */
  configuredConfig?: unknown;
}

/**
 * What `clew plugins list` and `info` show: every installed and linked plugin, loaded in
 * discovery mode into a throwaway registry (engines registered `readOnlyDiscovery`, no factory
 * runs, no tool or command reaches an agent), with the slots it holds. Never rejects because of a
 * plugin; load failures are in each status.
 */
export async function inspectPlugins(options: {
  home: string;
  config: ClewConfig;
}): Promise<{ plugins: PluginStatus[]; problems: string[] }> {
  const report = await loadPlugins({
    home: options.home,
    config: options.config,
    registry: createContextEngineRegistry(),
    logger: silentLogger,
    mode: "discovery",
  });
  const slots = Object.entries(options.config.plugins?.slots ?? {}) as Array<
    [keyof PluginSlotsConfig, string]
  >;
  const plugins = report.plugins.map((plugin): PluginStatus => {
    const status: PluginStatus = {
      ...plugin,
      slots: slots
        .filter(([, value]) => value === plugin.id || plugin.contextEngineIds.includes(value))
        .map(([slot]) => slot),
    };
    const configured = options.config.plugins?.entries?.[plugin.id]?.config;
    if (configured !== undefined) status.configuredConfig = configured;
    return status;
  });
  return { plugins, problems: report.problems };
}
