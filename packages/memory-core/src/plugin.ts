/**
 * memory-core as a plugin (`clew.plugin.json`, kind `memory`): registers `memory_search` and
 * `memory_get` for one workspace and makes its prompt section the process's memory section.
 * The host should load it only when `plugins.slots.memory` selects it (the default).
 */
import { join } from "node:path";
import { type PluginApi, registerMemoryPromptSection } from "@clew/plugin-sdk";
import { createMemoryTools } from "./memory-tools.js";
import { buildMemoryPromptSection } from "./prompt-section.js";

export const MEMORY_CORE_PLUGIN_ID = "memory-core";

interface MemoryCoreConfig {
  workspaceDir?: string;
}

/** `plugins.entries.memory-core.config.workspaceDir`, else the main agent's workspace. */
export function memoryCoreWorkspace(api: Pick<PluginApi, "paths" | "pluginConfig">): string {
  const configured = (api.pluginConfig as MemoryCoreConfig | undefined)?.workspaceDir;
  return configured ?? join(api.paths.home, "agents", "main", "workspace");
}

export default function register(api: PluginApi): void {
  for (const tool of createMemoryTools({ workspaceDir: memoryCoreWorkspace(api) })) api.registerTool(tool);
  registerMemoryPromptSection(buildMemoryPromptSection, { owner: `plugin:${api.id}` });
}
