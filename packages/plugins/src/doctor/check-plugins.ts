import { join } from "node:path";
import { installRecordsPath } from "../install-records.js";
import { CLEW_MANIFEST_FILE } from "../manifest.js";
import type { LoadedPlugin, PluginLoadReport } from "../plugin-loader.js";
import { check, type DoctorCheck } from "./doctor-check.js";
import type { EngineProbe } from "./probe-engine.js";

export interface PluginChecksInput {
  home: string;
  report: PluginLoadReport;
  /** Probes of the engines loaded plugins registered, by engine id. */
  probes: ReadonlyMap<string, EngineProbe>;
  configFile: string;
}

/**
 * One line per installed or linked plugin: the stage it failed at (manifest, config, import,
 * register, or its engine's factory / contract validation), refused registrations as warnings,
 * or what it loaded. Problems outside any plugin (a damaged `installs.json`) are errors too.
 */
export function checkPlugins(input: PluginChecksInput): DoctorCheck[] {
  const checks = input.report.problems.map((problem) =>
    check("plugins", "error", `plugins: ${problem}`, `repair or remove ${installRecordsPath(input.home)}`),
  );
  if (input.report.plugins.length === 0) {
    checks.push(check("plugins", "ok", "no plugins installed or linked"));
  }
  for (const plugin of input.report.plugins) checks.push(...checkPlugin(plugin, input));
  return checks;
}

function checkPlugin(plugin: LoadedPlugin, input: PluginChecksInput): DoctorCheck[] {
  const id = `plugin.${plugin.id}`;
  if (plugin.error !== undefined) {
    return [
      check(
        id,
        "error",
        `plugin ${plugin.id}: ${plugin.error.stage} failed: ${plugin.error.message}`,
        fixForStage(plugin, plugin.error.stage, input.configFile),
      ),
    ];
  }
  if (!plugin.enabled) return [check(id, "ok", `plugin ${plugin.id}: disabled (not loaded)`)];
  const checks: DoctorCheck[] = [];
  for (const engineId of plugin.contextEngineIds) {
    const failure = input.probes.get(engineId)?.failure;
    if (failure === undefined) continue;
    checks.push(
      check(
        id,
        "error",
        `plugin ${plugin.id}: context engine "${engineId}" ${failure.operation} failed: ${failure.reason}`,
        fixForStage(plugin, failure.operation, input.configFile),
      ),
    );
  }
  for (const diagnostic of plugin.diagnostics) {
    checks.push(
      check(
        id,
        "warning",
        `plugin ${plugin.id}: ${diagnostic.message}`,
        `change the plugin at ${plugin.dir}, or clew plugins disable ${plugin.id}`,
      ),
    );
  }
  if (checks.length === 0) checks.push(check(id, "ok", describeLoaded(plugin)));
  return checks;
}

function describeLoaded(plugin: LoadedPlugin): string {
  const version = plugin.version === undefined ? "" : ` ${plugin.version}`;
  const kind = plugin.kind.length === 0 ? "" : ` (${plugin.kind.join(", ")})`;
  const parts = [
    ...(plugin.contextEngineIds.length > 0 ? [`engines ${plugin.contextEngineIds.join(", ")}`] : []),
    ...(plugin.toolNames.length > 0 ? [`tools ${plugin.toolNames.join(", ")}`] : []),
    ...(plugin.commandNames.length > 0
      ? [`commands ${plugin.commandNames.map((name) => `/${name}`).join(", ")}`]
      : []),
  ];
  const registered = parts.length === 0 ? "" : `: ${parts.join("; ")}`;
  return `plugin ${plugin.id}${version}${kind} loaded from ${plugin.source} ${plugin.dir}${registered}`;
}

function fixForStage(plugin: LoadedPlugin, stage: string, configFile: string): string {
  switch (stage) {
    case "manifest":
      return `fix ${plugin.manifest?.manifestFile ?? join(plugin.dir, CLEW_MANIFEST_FILE)}, or clew plugins uninstall ${plugin.id}`;
    case "config":
      return `set plugins.entries.${plugin.id}.config in ${configFile} to match the plugin's configSchema`;
    default:
      return `fix the plugin at ${plugin.dir} (or clew plugins disable ${plugin.id}), then restart the gateway`;
  }
}
