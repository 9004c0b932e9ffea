import { type ClewConfig, isPluginEnabled } from "@clew/core";
import { hasKind } from "../manifest.js";
import type { PluginLoadReport } from "../plugin-loader.js";
import { check, type DoctorCheck } from "./doctor-check.js";

/** The memory plugin used when `plugins.slots.memory` is unset; it ships with Clew. */
export const DEFAULT_MEMORY_PLUGIN_ID = "memory-core";
export const MEMORY_KIND = "memory";

/**
 * `plugins.slots.memory`: unset selects the built-in `memory-core`, `none` turns memory off, any
 * other value must name an installed, enabled plugin of kind `memory` that loaded. Never throws.
 */
export function checkMemorySlot(
  config: ClewConfig,
  report: PluginLoadReport,
  configFile: string,
): DoctorCheck {
  const id = "memory-slot";
  const configured = config.plugins?.slots?.memory?.trim();
  if (configured !== undefined && configured.toLowerCase() === "none") {
    return check(id, "ok", "memory slot: none (no memory plugin; the agent has no memory tools)");
  }
  const pluginId = configured === undefined || configured === "" ? DEFAULT_MEMORY_PLUGIN_ID : configured;
  const slotText = configured === undefined || configured === "" ? " (the default)" : "";
  const plugin = report.plugins.find((candidate) => candidate.id === pluginId);
  const resetFix = `remove plugins.slots.memory from ${configFile} to use ${DEFAULT_MEMORY_PLUGIN_ID}`;
  if (!isPluginEnabled(config, pluginId)) {
    return check(
      id,
      "warning",
      `memory slot: ${pluginId}${slotText} is disabled; the agent has no memory tools`,
      `clew plugins enable ${pluginId}${pluginId === DEFAULT_MEMORY_PLUGIN_ID ? "" : `, or ${resetFix}`}`,
    );
  }
  if (plugin === undefined) {
    if (pluginId === DEFAULT_MEMORY_PLUGIN_ID) {
      return check(id, "ok", `memory slot: ${DEFAULT_MEMORY_PLUGIN_ID}${slotText}, built in`);
    }
    return check(
      id,
      "error",
      `memory slot: plugins.slots.memory names "${pluginId}", which is not installed or linked`,
      `clew plugins install <spec of ${pluginId}>, or ${resetFix}`,
    );
  }
  if (plugin.error !== undefined) {
    return check(
      id,
      "error",
      `memory slot: plugin ${pluginId} ${plugin.error.stage} failed; the agent has no memory tools`,
      `fix plugin ${pluginId} (see its line above), or ${resetFix}`,
    );
  }
  if (!hasKind(plugin, MEMORY_KIND)) {
    const kinds = plugin.kind.length === 0 ? "none" : plugin.kind.join(", ");
    return check(
      id,
      "warning",
      `memory slot: plugin ${pluginId} is not a memory plugin (kind: ${kinds})`,
      resetFix,
    );
  }
  const version = plugin.version === undefined ? "" : ` ${plugin.version}`;
  const tools = plugin.toolNames.length === 0 ? "no tools" : `tools ${plugin.toolNames.join(", ")}`;
  return check(id, "ok", `memory slot: ${pluginId}${version}${slotText} loaded (${tools})`);
}
