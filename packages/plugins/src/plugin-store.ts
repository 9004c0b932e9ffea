/**
 * Clew's plugins folder, `<home>/plugins/`: install (from a folder, a tarball or npm), link,
 * uninstall, enable and disable. Every change to `clew.json` goes through `editClewConfig`; every
 * change to `installs.json` is an atomic rewrite.
 */
import { mkdir, mkdtemp, readFile, rename, rm, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { describeError, loadConfig } from "@clew/core";
import {
  applyInstalledPlugin,
  type PluginRemoval,
  type PluginSelection,
  removeLoadPaths,
  removePluginFromConfig,
  setPluginEnabled,
} from "./config-changes.js";
import { type ConfigEditResult, editClewConfig } from "./config-editor.js";
import { discoverPlugins } from "./discover-plugins.js";
import { PluginInstallError, PluginManifestError, UnknownPluginError } from "./errors.js";
import {
  type PluginInstallRecord,
  type PluginInstallRecords,
  type PluginSource,
  pluginsDir,
  readInstallRecords,
  writeInstallRecords,
} from "./install-records.js";
import { type PluginManifest, readPluginManifest } from "./manifest.js";
import { createNpmRunner, installDependencies, type NpmRunner, packToTarball } from "./npm-runner.js";
import { extractPackageTarball, tarballIntegrity } from "./tarball.js";

export interface PluginStoreOptions {
  home: string;
  /** Default: the real npm. */
  npm?: NpmRunner;
  now?: () => number;
}

export interface PluginInstallResult {
  manifest: PluginManifest;
  record: PluginInstallRecord;
  selection: PluginSelection;
  config: ConfigEditResult;
  /** The install record this one replaced (a reinstall or upgrade). */
  replaced?: PluginInstallRecord;
}

export interface PluginUninstallResult {
  pluginId: string;
  removal: PluginRemoval;
  config: ConfigEditResult;
  record?: PluginInstallRecord;
  /** The installed copy deleted; linked folders are never deleted. */
  removedDir?: string;
}

const TARBALL_PATTERN = /\.(tgz|tar\.gz|tar)$/i;

export class PluginStore {
  readonly home: string;
  private readonly npm: NpmRunner;
  private readonly now: () => number;

  constructor(options: PluginStoreOptions) {
    this.home = options.home;
    this.npm = options.npm ?? createNpmRunner();
    this.now = options.now ?? Date.now;
  }

  /**
   * Installs a plugin into `<home>/plugins/<id>` with its production dependencies, records its
   * source, version and integrity, enables it and, for a context engine, selects it.
   * `spec` is a folder, a `.tgz` (both relative to `cwd`) or an npm spec.
   *
   * Throws before changing anything: `ConfigError` for a `clew.json` that does not parse,
   * `PluginManifestError` for a bad manifest, `PluginInstallError` when npm fails or the spec names
   * nothing. A reinstall replaces the old copy only once the new one is complete.
   */
  async install(spec: string, options: { cwd?: string } = {}): Promise<PluginInstallResult> {
    const source = await classifySpec(spec, options.cwd ?? process.cwd());
    if (source.kind === "path") await checkInstallableFolder(spec, source.path);
    await loadConfig(this.home);
    const records = await readInstallRecords(this.home);
    await mkdir(pluginsDir(this.home), { recursive: true });
    const work = await mkdtemp(join(pluginsDir(this.home), ".install-"));
    try {
      const { tarball, staging, manifest: staged } = await this.stage(spec, source, work);
      const dir = join(pluginsDir(this.home), staged.id);
      await replaceFolder(staging, dir, join(work, "previous"));
      const manifest = await readPluginManifest(dir);
      const record: PluginInstallRecord = {
        source: source.kind,
        spec: source.kind === "npm" ? spec : source.path,
        integrity: await tarballIntegrity(tarball),
        installedAt: new Date(this.now()).toISOString(),
        dir,
      };
      if (manifest.version !== undefined) record.version = manifest.version;
      return await this.commit(manifest, record, records);
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  }

  /**
   * Links a local folder for development: nothing is copied; the folder goes into
   * `plugins.load.paths` and is recorded with source `link`. Refused when a copy of the same id is
   * installed (uninstall it first).
   */
  async link(folder: string, options: { cwd?: string } = {}): Promise<PluginInstallResult> {
    const dir = resolve(options.cwd ?? process.cwd(), folder);
    const info = await stat(dir).catch(() => undefined);
    if (!info?.isDirectory()) throw new PluginInstallError(folder, `cannot link ${dir}: not a folder`);
    await loadConfig(this.home);
    const records = await readInstallRecords(this.home);
    const manifest = await readPluginManifest(dir);
    const installed = records[manifest.id];
    if (installed !== undefined && installed.source !== "link") {
      throw new PluginInstallError(
        folder,
        `plugin "${manifest.id}" is already installed from ${installed.spec}; uninstall it before linking ${dir}`,
      );
    }
    const record: PluginInstallRecord = {
      source: "link",
      spec: dir,
      installedAt: new Date(this.now()).toISOString(),
      dir,
    };
    if (manifest.version !== undefined) record.version = manifest.version;
    return this.commit(manifest, record, records);
  }

  /**
   * Removes the plugin's installed copy, install record, config entry, allow/deny mentions and
   * load paths, and resets every slot it held to its default (the key is deleted). A linked
   * folder itself is left alone. Throws `UnknownPluginError` when nothing knows the id and
   * `ConfigError` (before removing anything) when `clew.json` does not parse.
   */
  async uninstall(pluginId: string): Promise<PluginUninstallResult> {
    const { config } = await loadConfig(this.home);
    const records = await readInstallRecords(this.home);
    const record = records[pluginId];
    const linkedDirs = await this.linkedFoldersOf(pluginId, config.plugins?.load?.paths ?? []);
    const inConfig =
      config.plugins?.entries?.[pluginId] !== undefined ||
      Object.values(config.plugins?.slots ?? {}).includes(pluginId);
    if (record === undefined && linkedDirs.length === 0 && !inConfig) {
      throw new UnknownPluginError(pluginId, await this.knownPluginIds());
    }
    if (record?.source === "link") linkedDirs.push(record.dir);
    let removal: PluginRemoval = { resetSlots: [], removedLoadPaths: [], removedEntry: false };
    const configResult = await editClewConfig(this.home, (draft) => {
      removal = removePluginFromConfig(draft, pluginId, linkedDirs);
    });
    const result: PluginUninstallResult = { pluginId, removal, config: configResult };
    if (record !== undefined) {
      result.record = record;
      delete records[pluginId];
      await writeInstallRecords(this.home, records);
    }
    if (record !== undefined && record.source !== "link") {
      // Only ever the folder Clew owns, whatever the record says.
      const dir = join(pluginsDir(this.home), pluginId);
      await rm(dir, { recursive: true, force: true });
      result.removedDir = dir;
    }
    return result;
  }

  /** Sets `plugins.entries.<id>.enabled`. Throws `UnknownPluginError` for an id nothing knows. */
  async setEnabled(pluginId: string, enabled: boolean): Promise<ConfigEditResult> {
    const known = await this.knownPluginIds();
    if (!known.includes(pluginId)) throw new UnknownPluginError(pluginId, known);
    return editClewConfig(this.home, (draft) => setPluginEnabled(draft, pluginId, enabled));
  }

  records(): Promise<PluginInstallRecords> {
    return readInstallRecords(this.home);
  }

  /** Ids of installed and linked plugins and of plugins with a config entry, sorted. */
  async knownPluginIds(): Promise<string[]> {
    const { config } = await loadConfig(this.home);
    const discovered = await discoverPlugins(this.home, config);
    const ids = new Set([...Object.keys(discovered.records), ...Object.keys(config.plugins?.entries ?? {})]);
    for (const candidate of discovered.candidates) {
      const manifest = await readPluginManifest(candidate.dir).catch(() => undefined);
      if (manifest !== undefined) ids.add(manifest.id);
    }
    return [...ids].sort();
  }

  private async commit(
    manifest: PluginManifest,
    record: PluginInstallRecord,
    records: PluginInstallRecords,
  ): Promise<PluginInstallResult> {
    const replaced = records[manifest.id];
    records[manifest.id] = record;
    await writeInstallRecords(this.home, records);
    let selection: PluginSelection = { selectedContextEngine: false };
    const config = await editClewConfig(this.home, (draft) => {
      if (replaced?.source === "link" && replaced.dir !== record.dir) {
        removeLoadPaths(draft, [replaced.dir]);
      }
      selection = applyInstalledPlugin(
        draft,
        manifest,
        record.source === "link" ? { linkDir: record.dir } : {},
      );
    });
    const result: PluginInstallResult = { manifest, record, selection, config };
    if (replaced !== undefined) result.replaced = replaced;
    return result;
  }

  /** The complete plugin, dependencies included, in `<work>/package`, not yet in place. */
  private async stage(
    spec: string,
    source: SpecSource,
    work: string,
  ): Promise<{ tarball: string; staging: string; manifest: PluginManifest }> {
    const tarball = await this.obtainTarball(spec, source, work);
    const staging = join(work, "package");
    await extractPackageTarball(tarball, staging).catch((error: unknown) => {
      throw new PluginInstallError(spec, `cannot unpack ${tarball}: ${describeError(error)}`, error);
    });
    const manifest = await readPluginManifest(staging).catch((error: unknown) => {
      throw relocateManifestError(error, staging, source.kind === "path" ? source.path : spec);
    });
    if (await hasDependencies(staging)) {
      await installDependencies(this.npm, staging).catch((error: unknown) => {
        const detail = describeError(error);
        throw new PluginInstallError(
          spec,
          `cannot install the dependencies of ${spec}: ${detail}${unpublishedClewHint(detail, source)}`,
          error,
        );
      });
    }
    return { tarball, staging, manifest };
  }

  private async obtainTarball(spec: string, source: SpecSource, work: string): Promise<string> {
    if (source.kind === "tarball") return source.path;
    const packSpec = source.kind === "path" ? source.path : spec;
    try {
      return await packToTarball(this.npm, packSpec, work);
    } catch (error) {
      throw new PluginInstallError(spec, `cannot fetch ${spec}: ${describeError(error)}`, error);
    }
  }

  private async linkedFoldersOf(pluginId: string, loadPaths: string[]): Promise<string[]> {
    const folders: string[] = [];
    for (const path of loadPaths) {
      const manifest = await readPluginManifest(resolve(this.home, path)).catch(() => undefined);
      if (manifest?.id === pluginId) folders.push(path);
    }
    return folders;
  }
}

/**
 * What to do when npm could not find one of Clew's own packages (`@clew/...`): they are not on
 * the registry, so a plugin that depends on them (Clew's own, from a checkout) is linked instead.
 */
function unpublishedClewHint(npmError: string, source: SpecSource): string {
  if (!/\bE?404\b/.test(npmError) || !/@clew(\/|%2f)/i.test(npmError)) return "";
  const folder = source.kind === "npm" ? "<its folder in a Clew checkout>" : source.path;
  return `\nClew's own packages (@clew/...) are not on the npm registry: link the plugin instead, with "clew plugins install --link ${folder}"`;
}

type SpecSource = { kind: Exclude<PluginSource, "link" | "npm">; path: string } | { kind: "npm" };

/** A folder or tarball that exists (relative to `cwd`), else an npm spec unless it looks like a path. */
async function classifySpec(spec: string, cwd: string): Promise<SpecSource> {
  const path = resolve(cwd, spec);
  const info = await stat(path).catch(() => undefined);
  if (info?.isDirectory()) return { kind: "path", path };
  if (info?.isFile()) {
    if (TARBALL_PATTERN.test(path)) return { kind: "tarball", path };
    throw new PluginInstallError(spec, `cannot install ${path}: expected a plugin folder or a .tgz tarball`);
  }
  if (/^(\.{1,2}[\\/]|[\\/]|~)/.test(spec) || TARBALL_PATTERN.test(spec)) {
    throw new PluginInstallError(spec, `cannot install ${spec}: no such file or folder (${path})`);
  }
  return { kind: "npm" };
}

/** Fails fast, before npm runs, on a folder npm cannot pack or whose manifest is bad. */
async function checkInstallableFolder(spec: string, dir: string): Promise<void> {
  await readPluginManifest(dir);
  const packageJson = await stat(join(dir, "package.json")).catch(() => undefined);
  if (packageJson === undefined) {
    throw new PluginInstallError(
      spec,
      `cannot install ${dir}: it has no package.json (add one to install a copy, or link the folder with --link)`,
    );
  }
}

async function hasDependencies(dir: string): Promise<boolean> {
  const text = await readFile(join(dir, "package.json"), "utf8").catch(() => undefined);
  if (text === undefined) return false;
  try {
    const dependencies = (JSON.parse(text) as { dependencies?: Record<string, unknown> }).dependencies;
    return typeof dependencies === "object" && dependencies !== null && Object.keys(dependencies).length > 0;
  } catch {
    // npm pack already refused an unparsable package.json; a hand-made tarball gets no dependencies.
    return false;
  }
}

/** Moves `staging` to `target`; an existing `target` is moved aside first and restored on failure. */
async function replaceFolder(staging: string, target: string, aside: string): Promise<void> {
  const existing = await stat(target).catch(() => undefined);
  if (existing !== undefined) await rename(target, aside);
  try {
    await rename(staging, target);
  } catch (error) {
    if (existing !== undefined) await rename(aside, target);
    throw error;
  }
}

/** Manifest errors name the source the user gave, not the staging folder that is deleted. */
function relocateManifestError(error: unknown, staging: string, shownAs: string): unknown {
  if (!(error instanceof PluginManifestError)) return error;
  const rename = (text: string) => text.split(staging).join(shownAs);
  return new PluginManifestError(
    rename(error.file),
    error.problems.map((problem) => ({ field: problem.field, message: rename(problem.message) })),
    error,
  );
}
