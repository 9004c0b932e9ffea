/**
 * What a plugin's `register(api)` receives. The names follow OpenClaw's plugin API so an OpenClaw
 * context-engine plugin registers unchanged.
 *
 * Contract:
 * - `register` may be async; it runs once per load. A throw makes the plugin fail to load (its
 *   engine is then "not registered" and the agent runs on `legacy`); it never stops Clew.
 * - `registerContextEngine(id, factory)` registers under owner `plugin:<pluginId>` and may be
 *   called again for the same id (hot reload). `legacy` is reserved: the call is refused with a
 *   diagnostic and nothing is registered.
 * - `pluginConfig` is the plugin's `plugins.entries.<id>.config`, already validated against the
 *   manifest's `configSchema`.
 * - `registerTool(tool | factory, options?)` takes a tool, or (as in OpenClaw) a factory the agent
 *   calls before every run with that run's `PluginToolContext`, so the tools it returns can be bound
 *   to one session (a tool call carries no session of its own). A factory answers a tool, a list
 *   of tools, or `null`/`undefined` for none; it must be synchronous and cheap. A factory that
 *   throws or answers anything else is logged once and skipped; the run goes on without its tools.
 *   A tool name another owner holds is refused (registration time for tools, run time for a
 *   factory's tools). `options.name`/`options.names` declare a factory's tool names for listings
 *   (`clew plugins`, `clew doctor`); `options.optional` is accepted for OpenClaw compatibility and
 *   has no effect (Clew has no tool allowlist).
 */
import type { ContextEngineFactory, Logger } from "@clew/core";
import type { AgentTool } from "@mariozechner/pi-agent-core";

export interface PluginCommandContext {
  sessionKey: string;
  args: string;
}

export interface PluginCommand {
  /** Without the slash. */
  name: string;
  description: string;
  handler(context: PluginCommandContext): Promise<string> | string;
}

// biome-ignore lint/suspicious/noExplicitAny: tools differ in parameter schemas.
export type PluginTool = AgentTool<any, any>;

/**
 * What a tool factory learns about the run it makes tools for. The names are OpenClaw's
 * (`OpenClawPluginToolContext`); every field may be absent, so check before use.
 */
export interface PluginToolContext {
  /** The whole config (read-only). */
  config?: unknown;
  /** Where the agent's tools work. */
  workspaceDir?: string;
  /** The agent's state folder: the same path its context-engine factory receives. */
  agentDir?: string;
  agentId?: string;
  /** The session's stable key (`agent:<agentId>:<name>`; subagents `<parent key>:sub:<id>`). */
  sessionKey?: string;
  /** The session's current id (a new one after `/new` or `/reset`). */
  sessionId?: string;
  messageChannel?: string;
  sandboxed?: boolean;
  /**
   * Clew only: the id of the context engine serving this run (`legacy` after a fallback or a
   * quarantine), so an engine's tools can stay away from runs their engine does not serve.
   */
  contextEngineId?: string;
}

/** Called before every run; answers the run's tools (none for `null`/`undefined`). */
export type PluginToolFactory = (context: PluginToolContext) => PluginTool | PluginTool[] | null | undefined;

/** OpenClaw's `registerTool` options. */
export interface PluginToolOptions {
  /** The tool name a factory returns, for listings. */
  name?: string;
  /** The tool names a factory returns, for listings. */
  names?: string[];
  /** Accepted for OpenClaw compatibility; no effect in Clew. */
  optional?: boolean;
}

export interface PluginApi {
  /** The plugin's id from its manifest. */
  readonly id: string;
  readonly name: string;
  readonly version?: string;
  /** Where the plugin's files are. */
  readonly rootDir: string;
  /** Clew's home folder and the plugin's own state folder in it. */
  readonly paths: { home: string; stateDir: string };
  readonly pluginConfig: unknown;
  /** The whole Clew config (read-only). */
  readonly config: unknown;
  readonly logger: Logger;
  registerContextEngine(id: string, factory: ContextEngineFactory): void;
  registerTool(tool: PluginTool | PluginToolFactory, options?: PluginToolOptions): void;
  registerCommand(command: PluginCommand): void;
}

/** A plugin module's default export. */
export type PluginRegister = (api: PluginApi) => void | Promise<void>;
