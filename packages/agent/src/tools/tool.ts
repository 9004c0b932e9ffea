/**
 * The tool seam. Tools are pi's `AgentTool` (the shape OpenClaw plugins register too):
 * `name`, `label`, `description`, a TypeBox `parameters` schema and
 * `execute(toolCallId, params, signal, onUpdate)`.
 *
 * Contract:
 * - `execute` throws on failure; the runner turns the error into an `isError` tool result the
 *   model sees. A tool never takes the run down.
 * - `execute` honours `signal`: on abort it stops and rejects promptly.
 * - Tools that touch files resolve paths against the agent workspace and say so in errors.
 * - Tool schemas are sent to the model on every call and count toward the context.
 */
import type { PluginToolFactory } from "@clew/plugin-sdk";
import type { AgentTool, AgentToolResult } from "@mariozechner/pi-agent-core";

export type { AgentTool, AgentToolResult };

// biome-ignore lint/suspicious/noExplicitAny: tools differ in parameter schemas; the registry holds any of them.
export type AnyAgentTool = AgentTool<any, any>;

/** Where the built-in tools work. */
export interface ToolEnvironment {
  /** Working directory of `exec` and root of relative paths. */
  workspaceDir: string;
}

/**
 * Tools by name with the owner that registered each (core, `plugin:<id>`, `engine:<id>`), and the
 * tool factories plugins registered, which the agent calls per run (`service/session-tools.ts`).
 */
export class ToolRegistry {
  private readonly tools = new Map<string, { tool: AnyAgentTool; owner: string }>();
  private readonly toolFactories: Array<{ factory: PluginToolFactory; owner: string }> = [];

  /** Refuses a name another owner holds; the same owner may replace its own tool. */
  register(tool: AnyAgentTool, owner: string): { ok: true } | { ok: false; existingOwner: string } {
    const existing = this.tools.get(tool.name);
    if (existing !== undefined && existing.owner !== owner)
      return { ok: false, existingOwner: existing.owner };
    this.tools.set(tool.name, { tool, owner });
    return { ok: true };
  }

  /** Keeps a factory; the same factory registered again by its owner is kept once. */
  registerFactory(factory: PluginToolFactory, owner: string): void {
    const known = this.toolFactories.some((entry) => entry.factory === factory && entry.owner === owner);
    if (!known) this.toolFactories.push({ factory, owner });
  }

  /** The factories in registration order. */
  factories(): Array<{ factory: PluginToolFactory; owner: string }> {
    return [...this.toolFactories];
  }

  unregisterOwner(owner: string): void {
    for (const [name, entry] of this.tools) if (entry.owner === owner) this.tools.delete(name);
    for (let index = this.toolFactories.length - 1; index >= 0; index--)
      if (this.toolFactories[index]?.owner === owner) this.toolFactories.splice(index, 1);
  }

  get(name: string): AnyAgentTool | undefined {
    return this.tools.get(name)?.tool;
  }

  list(): AnyAgentTool[] {
    return [...this.tools.values()].map((entry) => entry.tool);
  }

  names(): Set<string> {
    return new Set(this.tools.keys());
  }
}
