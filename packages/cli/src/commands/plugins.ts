import { loadConfig, resolveClewHome } from "@clew/core";
import {
  type ConfigEditResult,
  createNpmRunner,
  inspectPlugins,
  type PluginInstallResult,
  type PluginStatus,
  PluginStore,
  UnknownPluginError,
} from "@clew/plugins";
import type { Command } from "commander";
import type { CliIo } from "../io.js";

const RESTART_HINT = "Restart the gateway to apply.";

/** `clew plugins install|uninstall|list|enable|disable|info`. */
export function registerPluginsCommands(program: Command, io: CliIo): void {
  const plugins = program
    .command("plugins")
    .description("install, link, list, enable, disable and uninstall plugins (Clew and OpenClaw)");

  plugins
    .command("install")
    .description("install a plugin from a folder, a .tgz or an npm spec (--link: link a folder, no copy)")
    .argument("<spec>", "npm spec, plugin folder or .tgz")
    .option("-l, --link", "link a local folder for development instead of copying it")
    .action(async (spec: string, options: { link?: boolean }) => {
      const store = openStore(io);
      const result = options.link
        ? await store.link(spec, { cwd: io.cwd })
        : await store.install(spec, { cwd: io.cwd });
      io.stdout(formatInstall(result));
    });

  plugins
    .command("uninstall")
    .description("remove a plugin and reset every slot it held to its default")
    .argument("<id>", "plugin id")
    .action(async (pluginId: string) => {
      const result = await openStore(io).uninstall(pluginId);
      const lines = [
        `Uninstalled ${pluginId}${result.removedDir === undefined ? "" : ` (removed ${result.removedDir})`}`,
        ...result.removal.removedLoadPaths.map((path) => `  unlinked ${path} (the folder itself is kept)`),
        ...result.removal.resetSlots.map(
          (slot) =>
            `  plugins.slots.${slot} reset to its default${slot === "contextEngine" ? " (legacy)" : ""}`,
        ),
        `  ${RESTART_HINT}`,
      ];
      io.stdout(`${lines.join("\n")}\n${configNote(result.config)}`);
    });

  plugins
    .command("list")
    .description("list installed and linked plugins with their load status")
    .option("--json", "print as JSON")
    .action(async (options: { json?: boolean }) => {
      const { plugins: statuses, problems } = await inspect(io);
      for (const problem of problems) io.stderr(`warning: ${problem}\n`);
      if (options.json) {
        io.stdout(`${JSON.stringify(statuses.map(statusJson), null, 2)}\n`);
        return;
      }
      io.stdout(
        statuses.length === 0
          ? "No plugins installed. Install one with: clew plugins install <npm spec | folder | .tgz>\n"
          : formatTable(statuses),
      );
    });

  for (const [name, enabled] of [
    ["enable", true],
    ["disable", false],
  ] as const) {
    plugins
      .command(name)
      .description(`${name} a plugin (plugins.entries.<id>.enabled); its slot selection is kept`)
      .argument("<id>", "plugin id")
      .action(async (pluginId: string) => {
        const result = await openStore(io).setEnabled(pluginId, enabled);
        io.stdout(
          `${enabled ? "Enabled" : "Disabled"} ${pluginId} (plugins.entries.${pluginId}.enabled = ${enabled}). ${RESTART_HINT}\n${configNote(result)}`,
        );
      });
  }

  plugins
    .command("info")
    .description("show one plugin: manifest, install record, config, slots and load status")
    .argument("<id>", "plugin id")
    .option("--json", "print as JSON")
    .action(async (pluginId: string, options: { json?: boolean }) => {
      const { plugins: statuses } = await inspect(io);
      const status = statuses.find((plugin) => plugin.id === pluginId);
      if (status === undefined)
        throw new UnknownPluginError(
          pluginId,
          statuses.map((plugin) => plugin.id),
        );
      io.stdout(options.json ? `${JSON.stringify(infoJson(status), null, 2)}\n` : formatInfo(status));
    });
}

function openStore(io: CliIo): PluginStore {
  // npm needs PATH and the user's npm settings; `io.env` may carry only Clew's own variables.
  return new PluginStore({
    home: resolveClewHome(io.env),
    npm: createNpmRunner({ env: { ...process.env, ...io.env } }),
  });
}

async function inspect(io: CliIo): Promise<{ plugins: PluginStatus[]; problems: string[] }> {
  const home = resolveClewHome(io.env);
  const { config } = await loadConfig(home);
  return inspectPlugins({ home, config });
}

function formatInstall(result: PluginInstallResult): string {
  const { manifest, record, selection } = result;
  const version = manifest.version === undefined ? "" : ` ${manifest.version}`;
  const lines =
    record.source === "link"
      ? [`Linked ${manifest.id}${version} from ${record.dir} (not copied; added to plugins.load.paths)`]
      : [
          `Installed ${manifest.id}${version} from ${record.source} ${record.spec}`,
          `  into ${record.dir}`,
          `  integrity ${record.integrity ?? "(none)"}`,
        ];
  if (result.replaced !== undefined) lines.push(`  replaced the earlier ${result.replaced.source} install`);
  if (selection.selectedContextEngine) {
    const previous =
      selection.previousContextEngine === undefined ? "" : `; was ${selection.previousContextEngine}`;
    lines.push(`  selected as the context engine (plugins.slots.contextEngine = ${manifest.id}${previous})`);
  }
  lines.push(`  ${RESTART_HINT}`);
  return `${lines.join("\n")}\n${configNote(result.config)}`;
}

function configNote(result: ConfigEditResult): string {
  if (!result.changed || !result.json5Dropped) return "";
  return `Note: ${result.path} was rewritten as plain JSON, which drops comments and JSON5 syntax; the previous file is kept as ${result.backupPath}\n`;
}

function statusText(status: PluginStatus): string {
  if (status.error !== undefined)
    return `error (${status.error.stage}): ${status.error.message.replace(/\n\s*/g, " ")}`;
  if (!status.enabled) return "disabled";
  return status.loaded ? "loaded" : "not loaded";
}

function formatTable(statuses: PluginStatus[]): string {
  const header = ["ID", "KIND", "VERSION", "SOURCE", "ENABLED", "SLOT", "STATUS"];
  const rows = statuses.map((status) => [
    status.id,
    status.kind.join(",") || "-",
    status.version ?? "-",
    status.source,
    status.enabled ? "yes" : "no",
    status.slots.join(",") || "-",
    statusText(status),
  ]);
  const widths = header.map((title, column) =>
    Math.max(
      title.length,
      ...rows.map((row) => (column === header.length - 1 ? 0 : (row[column] ?? "").length)),
    ),
  );
  return [header, ...rows]
    .map((row) =>
      row
        .map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column] ?? 0)))
        .join("  "),
    )
    .join("\n")
    .concat("\n");
}

function statusJson(status: PluginStatus) {
  return {
    id: status.id,
    name: status.name ?? null,
    kind: status.kind,
    version: status.version ?? null,
    source: status.source,
    enabled: status.enabled,
    slots: status.slots,
    loaded: status.loaded,
    error: status.error ?? null,
    dir: status.dir,
  };
}

function infoJson(status: PluginStatus) {
  return {
    ...statusJson(status),
    description: status.manifest?.description ?? null,
    manifestFile: status.manifest?.manifestFile ?? null,
    manifestFormat: status.manifest?.format ?? null,
    entry: status.manifest?.entry ?? null,
    record: status.record ?? null,
    config: status.configuredConfig ?? null,
    configSchema: status.manifest?.configSchema ?? null,
    contextEngineIds: status.contextEngineIds,
    toolNames: status.toolNames,
    commandNames: status.commandNames,
    diagnostics: status.diagnostics,
  };
}

function formatInfo(status: PluginStatus): string {
  const info = infoJson(status);
  const field = (label: string, value: string | null | undefined) =>
    value === null || value === undefined || value === "" ? [] : [`  ${label}: ${value}`];
  const lines = [
    `${status.id}${status.name && status.name !== status.id ? ` (${status.name})` : ""}${status.version ? ` ${status.version}` : ""}`,
    ...field("description", info.description),
    ...field("kind", status.kind.join(", ")),
    ...field("source", `${status.source}${status.record ? ` ${status.record.spec}` : ""}`),
    ...field("folder", status.dir),
    ...field("manifest", info.manifestFile && `${info.manifestFile} (${info.manifestFormat})`),
    ...field("entry", info.entry),
    ...field("integrity", status.record?.integrity),
    ...field("installed", status.record?.installedAt),
    ...field("enabled", status.enabled ? "yes" : "no"),
    ...field("slots", status.slots.join(", ")),
    ...field("status", statusText(status)),
    ...field("engines", status.contextEngineIds.join(", ")),
    ...field("tools", status.toolNames.join(", ")),
    ...field("commands", status.commandNames.map((name) => `/${name}`).join(", ")),
    ...field(
      "config",
      status.configuredConfig === undefined ? undefined : JSON.stringify(status.configuredConfig),
    ),
    ...status.diagnostics.map((diagnostic) => `  ${diagnostic.level}: ${diagnostic.message}`),
  ];
  return `${lines.join("\n")}\n`;
}
