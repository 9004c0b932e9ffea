/**
 * Loads the installed and linked plugins into a process: manifest, config check, import, then
 * `register(api)`. One plugin's failure is data in the report, never a crash, and leaves nothing
 * registered for that plugin, so the agent keeps running (on `legacy` if its engine was selected).
 */
import { createHash } from "node:crypto";
import { stat } from "node:fs/promises";
import { basename } from "node:path";
import { pathToFileURL } from "node:url";
import {
  type ClewConfig,
  type ContextEngineRegistry,
  describeError,
  isPluginEnabled,
  type Logger,
} from "@clew/core";
import type { PluginRegister } from "@clew/plugin-sdk";
import {
  createPluginApi,
  type PluginCommandSink,
  type PluginDiagnostic,
  type PluginToolSink,
  pluginOwner,
} from "./create-plugin-api.js";
import { discoverPlugins, type PluginCandidate } from "./discover-plugins.js";
import type { PluginInstallRecord, PluginSource } from "./install-records.js";
import { type PluginManifest, readPluginManifest } from "./manifest.js";
import { ensureOpenClawSdkResolution } from "./openclaw-sdk-resolution.js";
import { validatePluginConfig } from "./plugin-config.js";

export type PluginLoadStage = "manifest" | "config" | "import" | "register";

export interface PluginLoadFailure {
  stage: PluginLoadStage;
  message: string;
}

export interface LoadedPlugin {
  /** The manifest id; for an unreadable manifest, the record id or the folder name. */
  id: string;
  name?: string;
  kind: string[];
  version?: string;
  source: PluginSource;
  dir: string;
  enabled: boolean;
  /** `register(api)` completed. False for disabled plugins and failures. */
  loaded: boolean;
  error?: PluginLoadFailure;
  manifest?: PluginManifest;
  record?: PluginInstallRecord;
  contextEngineIds: string[];
  toolNames: string[];
  commandNames: string[];
  /** Registrations refused (reserved or taken ids) and other notes from the plugin API. */
  diagnostics: PluginDiagnostic[];
}

export interface PluginLoadReport {
  plugins: LoadedPlugin[];
  /** Problems outside any one plugin (an unreadable `installs.json`). */
  problems: string[];
}

export interface LoadPluginsOptions {
  home: string;
  config: ClewConfig;
  registry: ContextEngineRegistry;
  tools?: PluginToolSink;
  commands?: PluginCommandSink;
  logger: Logger;
  /**
   * `runtime` (default) registers engines that may run turns; `discovery` registers them for
   * inspection only (`readOnlyDiscovery`), as `clew plugins list` does.
   */
  mode?: "runtime" | "discovery";
  /** A `register(api)` still pending after this long fails the plugin. Default 10 s. */
  registerTimeoutMs?: number;
}

const DEFAULT_REGISTER_TIMEOUT_MS = 10_000;

/**
 * Loads every plugin `discoverPlugins` finds, in order. Disabled plugins (entry, allow/deny or the
 * global switch) are listed but not imported. For the others: the manifest is read, the plugin's
 * config is validated against its `configSchema` (before any plugin code runs), the entry is
 * imported by file URL (OpenClaw SDK imports resolve to Clew's SDK) and its default export
 * `register(api)` is awaited. Any failure is reported with its stage, logged once, and what the
 * plugin had registered is removed again. Never rejects.
 */
export async function loadPlugins(options: LoadPluginsOptions): Promise<PluginLoadReport> {
  const discovered = await discoverPlugins(options.home, options.config);
  for (const problem of discovered.problems) options.logger.error(`[plugins] ${problem}`);
  if (discovered.candidates.length > 0) {
    try {
      ensureOpenClawSdkResolution();
    } catch (error) {
      options.logger.warn(
        `[plugins] imports of openclaw/plugin-sdk/* will not resolve: ${describeError(error)}`,
      );
    }
  }
  const plugins: LoadedPlugin[] = [];
  const loadedFrom = new Map<string, string>();
  for (const candidate of discovered.candidates) {
    const plugin = await loadCandidate(candidate, loadedFrom, options);
    if (plugin.error !== undefined) {
      options.logger.error(`[plugins] ${plugin.id}: ${plugin.error.stage} failed: ${plugin.error.message}`, {
        plugin: plugin.id,
        stage: plugin.error.stage,
      });
    }
    plugins.push(plugin);
  }
  return { plugins, problems: discovered.problems };
}

async function loadCandidate(
  candidate: PluginCandidate,
  loadedFrom: Map<string, string>,
  options: LoadPluginsOptions,
): Promise<LoadedPlugin> {
  const plugin: LoadedPlugin = {
    id: candidate.recordId ?? basename(candidate.dir),
    kind: [],
    source: candidate.source,
    dir: candidate.dir,
    enabled: false,
    loaded: false,
    contextEngineIds: [],
    toolNames: [],
    commandNames: [],
    diagnostics: [],
  };
  if (candidate.record !== undefined) plugin.record = candidate.record;
  let manifest: PluginManifest;
  try {
    manifest = await readPluginManifest(candidate.dir);
  } catch (error) {
    plugin.enabled = isPluginEnabled(options.config, plugin.id);
    return fail(plugin, "manifest", describeError(error));
  }
  describeManifest(plugin, manifest);
  plugin.enabled = isPluginEnabled(options.config, manifest.id);
  const earlier = loadedFrom.get(manifest.id);
  if (earlier !== undefined) {
    return fail(plugin, "manifest", `duplicate plugin id "${manifest.id}": already loaded from ${earlier}`);
  }
  loadedFrom.set(manifest.id, candidate.dir);
  if (!plugin.enabled) return plugin;
  const validation = validatePluginConfig(manifest, options.config.plugins?.entries?.[manifest.id]?.config, {
    home: options.home,
  });
  if (!validation.ok) return fail(plugin, "config", validation.message);
  let register: PluginRegister;
  try {
    register = await importRegister(manifest, candidate.record);
  } catch (error) {
    return fail(plugin, "import", describeError(error));
  }
  return runRegister(plugin, manifest, register, validation.config, options);
}

async function runRegister(
  plugin: LoadedPlugin,
  manifest: PluginManifest,
  register: PluginRegister,
  pluginConfig: unknown,
  options: LoadPluginsOptions,
): Promise<LoadedPlugin> {
  const { api, registrations, revoke } = createPluginApi({
    manifest,
    pluginConfig,
    config: options.config,
    home: options.home,
    registry: options.registry,
    logger: options.logger,
    lifecycle: options.mode === "discovery" ? "readOnlyDiscovery" : "runtime",
    ...(options.tools === undefined ? {} : { tools: options.tools }),
    ...(options.commands === undefined ? {} : { commands: options.commands }),
  });
  plugin.diagnostics = registrations.diagnostics;
  try {
    await withTimeout(
      Promise.resolve().then(() => register(api)),
      options.registerTimeoutMs ?? DEFAULT_REGISTER_TIMEOUT_MS,
    );
  } catch (error) {
    revoke();
    unregisterPlugin(manifest.id, options);
    const reason = error instanceof RegisterTimeoutError ? error.message : `threw: ${describeError(error)}`;
    return fail(plugin, "register", `register(api) ${reason}`);
  }
  plugin.contextEngineIds = registrations.contextEngineIds;
  plugin.toolNames = registrations.toolNames;
  plugin.commandNames = registrations.commandNames;
  plugin.loaded = true;
  return plugin;
}

/** Removes everything `plugin:<id>` registered; returns the engine ids removed. */
export function unregisterPlugin(
  pluginId: string,
  targets: Pick<LoadPluginsOptions, "registry" | "tools" | "commands">,
): string[] {
  const owner = pluginOwner(pluginId);
  targets.tools?.unregisterOwner?.(owner);
  targets.commands?.unregisterOwner?.(owner);
  return targets.registry.unregisterOwner(owner);
}

/**
 * The plugin's `register`: a default export function, a default export object with `register`
 * (OpenClaw's `definePluginEntry` shape), or a named `register`. The URL carries a key derived
 * from the install's integrity and the entry's modification time, so a reload after a reinstall
 * or an edit imports the new code instead of Node's cached module.
 */
async function importRegister(
  manifest: PluginManifest,
  record: PluginInstallRecord | undefined,
): Promise<PluginRegister> {
  const info = await stat(manifest.entry);
  const version = createHash("sha256")
    .update(`${record?.integrity ?? ""}:${info.mtimeMs}:${info.size}`)
    .digest("hex")
    .slice(0, 12);
  const imported = (await import(`${pathToFileURL(manifest.entry).href}?clew-load=${version}`)) as {
    default?: unknown;
    register?: unknown;
  };
  const exported = imported.default;
  if (typeof exported === "function") return exported as PluginRegister;
  const fromObject = (exported as { register?: unknown } | null | undefined)?.register;
  if (typeof fromObject === "function") return fromObject.bind(exported) as PluginRegister;
  if (typeof imported.register === "function") return imported.register as PluginRegister;
  throw new Error(
    `${manifest.entry} exports no register function (expected "export default function register(api)")`,
  );
}

function describeManifest(plugin: LoadedPlugin, manifest: PluginManifest): void {
  plugin.id = manifest.id;
  plugin.name = manifest.name;
  plugin.kind = manifest.kind;
  plugin.manifest = manifest;
  if (manifest.version !== undefined) plugin.version = manifest.version;
}

function fail(plugin: LoadedPlugin, stage: PluginLoadStage, message: string): LoadedPlugin {
  plugin.loaded = false;
  plugin.error = { stage, message };
  return plugin;
}

class RegisterTimeoutError extends Error {}

function withTimeout<T>(work: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new RegisterTimeoutError(`did not finish within ${timeoutMs} ms`)),
      timeoutMs,
    );
    timer.unref();
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
