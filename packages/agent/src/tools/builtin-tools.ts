/** The four tools every agent gets: read, write, edit, exec. */
import { createEditTool } from "./edit-tool.js";
import { createExecTool } from "./exec-tool.js";
import { createReadTool } from "./read-tool.js";
import type { AnyAgentTool, ToolEnvironment, ToolRegistry } from "./tool.js";
import { createWriteTool } from "./write-tool.js";

/** Owner id the built-in tools are registered under. */
export const BUILTIN_TOOL_OWNER = "core";

export interface BuiltinToolsEnvironment extends ToolEnvironment {
  /** Default `exec` timeout; 120 s when unset. */
  execTimeoutMs?: number;
  /** Most `exec` output returned; 30,000 chars when unset. */
  outputCapChars?: number;
  /** Most text one `read` returns; 50,000 chars when unset. */
  readMaxChars?: number;
  /** What `~` expands to in paths; the user's home directory when unset. */
  homeDir?: string;
}

/** Creates `read`, `write`, `edit` and `exec` bound to `env.workspaceDir`, in that order. */
export function createBuiltinTools(env: BuiltinToolsEnvironment): AnyAgentTool[] {
  const paths = { workspaceDir: env.workspaceDir, homeDir: env.homeDir };
  return [
    createReadTool({ ...paths, maxChars: env.readMaxChars }),
    createWriteTool(paths),
    createEditTool(paths),
    createExecTool({
      workspaceDir: env.workspaceDir,
      timeoutMs: env.execTimeoutMs,
      outputCapChars: env.outputCapChars,
    }),
  ];
}

/**
 * Registers the built-in tools under owner "core", replacing earlier core registrations. Never
 * throws: a name another owner already holds is left to that owner and reported in `refused`.
 */
export function registerBuiltinTools(
  registry: ToolRegistry,
  env: BuiltinToolsEnvironment,
): { registered: string[]; refused: Array<{ name: string; existingOwner: string }> } {
  const registered: string[] = [];
  const refused: Array<{ name: string; existingOwner: string }> = [];
  for (const tool of createBuiltinTools(env)) {
    const result = registry.register(tool, BUILTIN_TOOL_OWNER);
    if (result.ok) registered.push(tool.name);
    else refused.push({ name: tool.name, existingOwner: result.existingOwner });
  }
  return { registered, refused };
}
