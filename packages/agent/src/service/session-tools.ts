/**
 * The tools of one run: the agent's tools, the tools plugin factories make for this session, and,
 * for top-level sessions, `spawn_subagent` bound to it. Built before every run, because factory
 * tools are bound to the session they run in (a tool call carries no session of its own).
 */
import { agentDir, describeError, type Logger } from "@clew/core";
import type { PluginToolContext, PluginToolFactory } from "@clew/plugin-sdk";
import { createSpawnSubagentTool, isSubagentSessionKey } from "../subagents/spawn-tool.js";
import { type AnyAgentTool, ToolRegistry } from "../tools/tool.js";
import type { LocalAgentService, OpenSession } from "./local-agent-service.js";

export interface ToolFactoryEntry {
  factory: PluginToolFactory;
  owner: string;
}

/**
 * The plugins' tool factories of one agent. `addTools` never throws: a factory that throws, or
 * answers anything but a tool, a list of tools or nothing (a promise included), is logged once
 * and what it answered is skipped; a tool whose name another owner holds is refused, logged once.
 * The other factories' tools, and the run, go on.
 */
export class SessionToolFactories {
  /** `<owner>\0<problem kind>` already logged: a broken factory would otherwise log every run. */
  private readonly warned = new Set<string>();

  constructor(
    private readonly entries: readonly ToolFactoryEntry[],
    private readonly logger: Logger,
  ) {}

  /** Registers into `registry` the tools every factory makes for `context`. */
  addTools(registry: ToolRegistry, context: PluginToolContext): void {
    for (const entry of this.entries) {
      for (const tool of this.toolsOf(entry, context)) {
        const result = registry.register(tool, entry.owner);
        if (!result.ok) {
          this.warnOnce(
            entry,
            `name:${tool.name}`,
            `tool "${tool.name}" refused: the name belongs to ${result.existingOwner}`,
          );
        }
      }
    }
  }

  private toolsOf(entry: ToolFactoryEntry, context: PluginToolContext): AnyAgentTool[] {
    let answer: unknown;
    try {
      answer = entry.factory(context);
    } catch (error) {
      this.warnOnce(entry, "threw", `threw: ${describeError(error)}`);
      return [];
    }
    if (answer === null || answer === undefined) return [];
    if (typeof (answer as { then?: unknown }).then === "function") {
      this.warnOnce(entry, "junk", "answered a promise; tool factories must answer synchronously");
      return [];
    }
    const candidates: unknown[] = Array.isArray(answer) ? answer : [answer];
    const tools = candidates.filter(isAgentTool);
    if (tools.length < candidates.length) {
      this.warnOnce(
        entry,
        "junk",
        "answered something that is not a tool (a tool needs a name, a description, parameters and execute)",
      );
    }
    return tools;
  }

  private warnOnce(entry: ToolFactoryEntry, kind: string, problem: string): void {
    const key = `${entry.owner}\0${kind}`;
    if (this.warned.has(key)) return;
    this.warned.add(key);
    this.logger.warn(`tool factory of ${entry.owner} ${problem}; left out of the run (logged once)`, {
      owner: entry.owner,
    });
  }
}

function isAgentTool(value: unknown): value is AnyAgentTool {
  if (typeof value !== "object" || value === null) return false;
  const tool = value as Record<string, unknown>;
  return (
    typeof tool.name === "string" &&
    tool.name.length > 0 &&
    typeof tool.description === "string" &&
    typeof tool.parameters === "object" &&
    tool.parameters !== null &&
    typeof tool.execute === "function"
  );
}

/**
 * The tools of a run of `open`: the agent's tools, the factory tools for this session, and
 * `spawn_subagent` unless the session is a subagent's. Never rejects.
 */
export async function toolsForSession(service: LocalAgentService, open: OpenSession): Promise<ToolRegistry> {
  const { runtime } = open;
  const tools = new ToolRegistry();
  for (const tool of runtime.tools.list()) tools.register(tool, "runtime");
  if (!isSubagentSessionKey(open.key)) tools.register(createSpawnSubagentTool(service, open), "core");
  runtime.toolFactories.addTools(tools, {
    config: service.options.config,
    agentId: runtime.agentId,
    agentDir: agentDir(service.options.home, runtime.agentId),
    workspaceDir: runtime.workspaceDir,
    sessionKey: open.key,
    sessionId: open.session.sessionId,
    ...(await servingEngineId(open)),
  });
  return tools;
}

/** The engine serving the session's runs now (its info follows a quarantine to the fallback). */
async function servingEngineId(open: OpenSession): Promise<{ contextEngineId?: string }> {
  try {
    return { contextEngineId: (await open.runtime.host.engine()).engine.info.id };
  } catch {
    // A disposed host or a broken legacy engine: the run reports that itself.
    return {};
  }
}
