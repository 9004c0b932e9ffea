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
  // biome-ignore lint/suspicious/noExplicitAny: tools differ in parameter schemas.
  registerTool(tool: AgentTool<any, any>): void;
  registerCommand(command: PluginCommand): void;
}

/** A plugin module's default export. */
export type PluginRegister = (api: PluginApi) => void | Promise<void>;
