import { join } from "node:path";
import {
  type ClewConfig,
  type ContextEngineFactory,
  type ContextEngineRegistrationLifecycle,
  type ContextEngineRegistry,
  DEFAULT_CONTEXT_ENGINE_ID,
  type LogFields,
  type Logger,
} from "@clew/core";
import type {
  PluginApi,
  PluginCommand,
  PluginTool,
  PluginToolFactory,
  PluginToolOptions,
} from "@clew/plugin-sdk";
import type { PluginManifest } from "./manifest.js";

export type { PluginTool };

type SinkResult = { ok: true } | { ok: false; existingOwner: string };

/**
 * Where plugin tools go; the agent's `ToolRegistry` fits. A sink without `registerFactory` takes
 * no tool factories: registering one is refused with a diagnostic.
 */
export interface PluginToolSink {
  register(tool: PluginTool, owner: string): SinkResult;
  /** Keeps a factory the agent calls per run; owners may hold several. */
  registerFactory?(factory: PluginToolFactory, owner: string): void;
  unregisterOwner?(owner: string): void;
}

/** Where plugin chat commands go. */
export interface PluginCommandSink {
  register(command: PluginCommand, owner: string): SinkResult;
  unregisterOwner?(owner: string): void;
}

export interface PluginDiagnostic {
  level: "warn" | "error";
  message: string;
}

/** What one plugin's `register(api)` registered, and what was refused. */
export interface PluginRegistrations {
  contextEngineIds: string[];
  toolNames: string[];
  commandNames: string[];
  diagnostics: PluginDiagnostic[];
}

export interface CreatePluginApiOptions {
  manifest: PluginManifest;
  /** Already validated against the manifest's `configSchema`. */
  pluginConfig: unknown;
  config: ClewConfig;
  home: string;
  registry: ContextEngineRegistry;
  tools?: PluginToolSink;
  commands?: PluginCommandSink;
  logger: Logger;
  lifecycle: ContextEngineRegistrationLifecycle;
}

/** Registry owner of everything a plugin registers. */
export function pluginOwner(pluginId: string): string {
  return `plugin:${pluginId}`;
}

/** `<home>/plugin-state/<id>`: survives reinstalls; may not exist yet. */
export function pluginStateDir(home: string, pluginId: string): string {
  return join(home, "plugin-state", pluginId);
}

/**
 * The `PluginApi` one plugin's `register(api)` receives, and the record of what it registered.
 * Engines register under owner `plugin:<id>` with `allowSameOwnerRefresh` (reloads replace them);
 * `legacy` is refused with the diagnostic `context engine id reserved by core: legacy`, and an id
 * another owner holds with `context engine already registered: <id> (<owner>)`. Refusals are
 * logged and recorded, never thrown, so one bad call does not fail the plugin. A tool factory
 * goes to the sink's `registerFactory` under the same owner (refused when the sink has none), and
 * the names it declares (`options.name`, `options.names`) are recorded in `toolNames`.
 * `revoke()` turns every later call into a refused no-op (used once a plugin failed to load).
 */
export function createPluginApi(options: CreatePluginApiOptions): {
  api: PluginApi;
  registrations: PluginRegistrations;
  revoke(): void;
} {
  const { manifest, registry, logger } = options;
  const owner = pluginOwner(manifest.id);
  const registrations: PluginRegistrations = {
    contextEngineIds: [],
    toolNames: [],
    commandNames: [],
    diagnostics: [],
  };
  let revoked = false;
  const refuse = (message: string, level: PluginDiagnostic["level"] = "error"): void => {
    registrations.diagnostics.push({ level, message });
    logger[level](`[plugins] ${manifest.id}: ${message}`, { plugin: manifest.id });
  };
  const usable = (what: string): boolean => {
    if (revoked) refuse(`${what} ignored: the plugin failed to load`, "warn");
    return !revoked;
  };
  const report = (problem: string | undefined): void => {
    if (problem !== undefined) refuse(problem);
  };
  // Each answers the refusal to report, or undefined once registered.
  const registerEngine = (id: string, factory: ContextEngineFactory): string | undefined => {
    if (id === DEFAULT_CONTEXT_ENGINE_ID) return `context engine id reserved by core: ${id}`;
    if (typeof id !== "string" || id.trim().length === 0 || typeof factory !== "function") {
      return "registerContextEngine needs a non-empty id and a factory function";
    }
    const result = registry.registerContextEngine(id, factory, {
      owner,
      allowSameOwnerRefresh: true,
      lifecycle: options.lifecycle,
    });
    if (!result.ok) return `context engine already registered: ${id} (${result.existingOwner})`;
    addOnce(registrations.contextEngineIds, id);
    return undefined;
  };
  const registerFactory = (
    factory: PluginToolFactory,
    toolOptions?: PluginToolOptions,
  ): string | undefined => {
    const sink = options.tools;
    if (sink !== undefined && sink.registerFactory === undefined)
      return "registerTool: this host takes no tool factories";
    sink?.registerFactory?.(factory, owner);
    const declared = [toolOptions?.name, ...(toolOptions?.names ?? [])];
    for (const name of declared)
      if (typeof name === "string" && name.length > 0) addOnce(registrations.toolNames, name);
    return undefined;
  };
  const registerTool = (tool: PluginTool): string | undefined => {
    if (typeof tool?.name !== "string" || tool.name.length === 0)
      return "registerTool needs a tool with a name";
    const result = options.tools?.register(tool, owner) ?? { ok: true };
    if (!result.ok) return `tool already registered: ${tool.name} (${result.existingOwner})`;
    addOnce(registrations.toolNames, tool.name);
    return undefined;
  };
  const registerCommand = (command: PluginCommand): string | undefined => {
    if (typeof command?.name !== "string" || !/^[a-z][a-z0-9_-]*$/i.test(command.name)) {
      return "registerCommand needs a command name of letters, digits, '_' or '-' (without the slash)";
    }
    if (typeof command.handler !== "function") return `command /${command.name} has no handler`;
    const result = options.commands?.register(command, owner) ?? { ok: true };
    if (!result.ok) return `command already registered: /${command.name} (${result.existingOwner})`;
    addOnce(registrations.commandNames, command.name);
    return undefined;
  };
  const api: PluginApi = {
    id: manifest.id,
    name: manifest.name,
    ...(manifest.version === undefined ? {} : { version: manifest.version }),
    rootDir: manifest.rootDir,
    paths: { home: options.home, stateDir: pluginStateDir(options.home, manifest.id) },
    pluginConfig: options.pluginConfig,
    config: deepFreeze(structuredClone(options.config)),
    logger: pluginLogger(logger, manifest.id),
    registerContextEngine(id: string, factory: ContextEngineFactory): void {
      if (usable(`registerContextEngine("${id}")`)) report(registerEngine(id, factory));
    },
    registerTool(tool: PluginTool | PluginToolFactory, toolOptions?: PluginToolOptions): void {
      if (!usable("registerTool")) return;
      report(typeof tool === "function" ? registerFactory(tool, toolOptions) : registerTool(tool));
    },
    registerCommand(command: PluginCommand): void {
      if (usable("registerCommand")) report(registerCommand(command));
    },
  };
  return {
    api,
    registrations,
    revoke: () => {
      revoked = true;
    },
  };
}

function addOnce(list: string[], value: string): void {
  if (!list.includes(value)) list.push(value);
}

function pluginLogger(logger: Logger, pluginId: string): Logger {
  const write =
    (level: keyof Logger) =>
    (message: string, fields?: LogFields): void =>
      logger[level](`[${pluginId}] ${message}`, { ...fields, plugin: pluginId });
  return { debug: write("debug"), info: write("info"), warn: write("warn"), error: write("error") };
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
