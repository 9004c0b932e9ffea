import { createHash } from "node:crypto";
import { mkdtemp, readdir, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import {
  type ClewConfig,
  ConfigError,
  createContextEngineRegistry,
  loadConfig,
  MemoryLogger,
  resolveContextEngine,
} from "@clew/core";
import JSON5 from "json5";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  loadPlugins,
  PluginInstallError,
  PluginManifestError,
  PluginStore,
  readInstallRecords,
  UnknownPluginError,
  writeInstallRecords,
} from "../src/index.js";
import { createNpmRunner } from "../src/npm-runner.js";
import {
  brokenFixture,
  CLEW_ENGINE_FIXTURE,
  createTempHome,
  FIXTURES,
  packFixture,
  writeFiles,
} from "./support.js";

const INSTALLED_AT = Date.parse("2026-01-02T03:04:05.000Z");

let temp: Awaited<ReturnType<typeof createTempHome>>;
let store: PluginStore;
beforeEach(async () => {
  temp = await createTempHome();
  store = new PluginStore({ home: temp.home, now: () => INSTALLED_AT });
});
afterEach(async () => {
  await temp.cleanup();
});

const pluginDir = () => join(temp.home, "plugins", "fixture-engine");

describe("PluginStore install", () => {
  it("copies a plugin folder into <home>/plugins/<id>, records it, enables it and selects its engine", async () => {
    const result = await store.install(CLEW_ENGINE_FIXTURE);

    expect(result.record).toEqual({
      source: "path",
      spec: CLEW_ENGINE_FIXTURE,
      version: "1.2.0",
      integrity: expect.stringMatching(/^sha512-[A-Za-z0-9+/]+=*$/),
      installedAt: "2026-01-02T03:04:05.000Z",
      dir: pluginDir(),
    });
    expect(await readInstallRecords(temp.home)).toEqual({ "fixture-engine": result.record });
    expect((await readdir(pluginDir())).sort()).toEqual(["clew.plugin.json", "index.mjs", "package.json"]);
    expect((await readdir(join(temp.home, "plugins"))).sort()).toEqual(["fixture-engine", "installs.json"]);
    expect(await temp.readConfig()).toEqual({
      plugins: {
        entries: { "fixture-engine": { enabled: true } },
        slots: { contextEngine: "fixture-engine" },
      },
    });
    expect(result.selection).toEqual({ selectedContextEngine: true });
  });

  it("installs a tarball made by npm pack with the tarball's integrity, then an npm spec over it", async () => {
    const packDir = await mkdtemp(join(tmpdir(), "clew-pack-"));
    try {
      const tarball = await packFixture(CLEW_ENGINE_FIXTURE, packDir);
      const expected = `sha512-${createHash("sha512")
        .update(await readFile(tarball))
        .digest("base64")}`;
      const fromTarball = await store.install(tarball);
      expect(fromTarball.record).toMatchObject({ source: "tarball", spec: tarball, integrity: expected });

      const spec = pathToFileURL(CLEW_ENGINE_FIXTURE).href;
      const fromNpm = await store.install(spec);
      expect(fromNpm.record).toMatchObject({ source: "npm", spec, integrity: expected, dir: pluginDir() });
      expect(fromNpm.replaced).toEqual(fromTarball.record);
      expect(Object.keys(await readInstallRecords(temp.home))).toEqual(["fixture-engine"]);
      expect((await readdir(join(temp.home, "plugins"))).sort()).toEqual(["fixture-engine", "installs.json"]);
    } finally {
      await rm(packDir, { recursive: true, force: true });
    }
  });

  it("uninstall removes the copy and resets every slot it held, leaving the rest of clew.json intact", async () => {
    await temp.writeConfig(`// kept settings
{
  agents: { defaults: { model: "openai/gpt-test" } },
  plugins: { entries: { other: { enabled: false } }, slots: { memory: "memory-core" } },
}
`);
    const installed = await store.install(CLEW_ENGINE_FIXTURE);
    expect(installed.config.json5Dropped).toBe(false);
    const installedConfig = JSON5.parse(await temp.readConfigText()) as ClewConfig;
    expect(installedConfig.plugins?.slots).toEqual({
      memory: "memory-core",
      contextEngine: "fixture-engine",
    });

    const result = await store.uninstall("fixture-engine");

    expect(result.removal.resetSlots).toEqual(["contextEngine"]);
    expect(result.removedDir).toBe(pluginDir());
    await expect(stat(pluginDir())).rejects.toMatchObject({ code: "ENOENT" });
    expect(await readInstallRecords(temp.home)).toEqual({});
    // The file's comment survives both edits.
    const text = await temp.readConfigText();
    expect(text.startsWith("// kept settings\n")).toBe(true);
    expect(JSON5.parse(text)).toEqual({
      agents: { defaults: { model: "openai/gpt-test" } },
      plugins: { entries: { other: { enabled: false } }, slots: { memory: "memory-core" } },
    });
  });
});

describe("PluginStore dependencies", () => {
  it("installs the plugin's own dependencies so its imports resolve after the source is gone", async () => {
    const source = join(temp.home, "sources");
    const helper = join(source, "helper");
    const plugin = join(source, "plugin");
    await writeFiles(helper, {
      "package.json": { name: "clew-fixture-helper", version: "1.0.0", type: "module", main: "index.mjs" },
      "index.mjs": 'export const engineName = "named by a dependency";\n',
    });
    await writeFiles(plugin, {
      "package.json": {
        name: "with-dependency",
        version: "2.0.0",
        type: "module",
        main: "index.mjs",
        dependencies: { "clew-fixture-helper": `file:${helper}` },
      },
      "clew.plugin.json": { id: "with-dependency", kind: "context-engine" },
      "index.mjs": await readFile(join(FIXTURES, "with-dependency.mjs"), "utf8"),
    });

    await store.install(plugin);
    await rm(source, { recursive: true, force: true });

    const registry = createContextEngineRegistry();
    const { config } = await loadConfig(temp.home);
    const report = await loadPlugins({ home: temp.home, config, registry, logger: new MemoryLogger() });
    expect(report.plugins).toMatchObject([{ id: "with-dependency", loaded: true }]);
    const resolved = await resolveContextEngine(registry, { config, logger: new MemoryLogger() });
    expect(resolved.engine.info.name).toBe("named by a dependency");
  });

  it("says to link a plugin that needs Clew's own packages, which npm cannot find", async () => {
    const plugin = join(temp.home, "sources", "needs-clew");
    await writeFiles(plugin, {
      "package.json": {
        name: "needs-clew",
        version: "1.0.0",
        type: "module",
        main: "index.mjs",
        dependencies: { "@clew/core": "0.1.0" },
      },
      "clew.plugin.json": { id: "needs-clew", kind: "context-engine" },
      "index.mjs": "export default {};\n",
    });
    // The real npm packs the folder; its install answers as the registry does for @clew/core.
    const npm = createNpmRunner();
    const offline = new PluginStore({
      home: temp.home,
      now: () => INSTALLED_AT,
      npm: async (args, options) => {
        if (args[0] !== "install") return npm(args, options);
        throw new Error(
          `npm ${args.join(" ")} failed: npm error code E404\nnpm error 404 Not Found - GET https://registry.npmjs.org/@clew%2fcore`,
        );
      },
    });
    const failure = await offline.install(plugin).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(PluginInstallError);
    expect((failure as Error).message).toContain(
      `link the plugin instead, with "clew plugins install --link ${plugin}"`,
    );
    // Nothing was installed or recorded.
    expect(await readInstallRecords(temp.home)).toEqual({});
  });
});

describe("PluginStore link, enable, disable", () => {
  it("links a folder without copying it and unlinking keeps the folder", async () => {
    const result = await store.link(CLEW_ENGINE_FIXTURE);
    expect(result.record).toEqual({
      source: "link",
      spec: CLEW_ENGINE_FIXTURE,
      version: "1.2.0",
      installedAt: "2026-01-02T03:04:05.000Z",
      dir: CLEW_ENGINE_FIXTURE,
    });
    expect(await temp.readConfig()).toEqual({
      plugins: {
        entries: { "fixture-engine": { enabled: true } },
        load: { paths: [CLEW_ENGINE_FIXTURE] },
        slots: { contextEngine: "fixture-engine" },
      },
    });
    await expect(stat(pluginDir())).rejects.toMatchObject({ code: "ENOENT" });

    const removed = await store.uninstall("fixture-engine");
    expect(removed.removal.removedLoadPaths).toEqual([CLEW_ENGINE_FIXTURE]);
    expect(removed.removedDir).toBeUndefined();
    expect((await stat(CLEW_ENGINE_FIXTURE)).isDirectory()).toBe(true);
    expect(await temp.readConfig()).toEqual({});
  });

  it("disable and enable set plugins.entries.<id>.enabled and keep the slot", async () => {
    await store.link(CLEW_ENGINE_FIXTURE);
    await store.setEnabled("fixture-engine", false);
    expect((await temp.readConfig()).plugins).toMatchObject({
      entries: { "fixture-engine": { enabled: false } },
      slots: { contextEngine: "fixture-engine" },
    });
    await store.setEnabled("fixture-engine", true);
    expect((await temp.readConfig()).plugins?.entries).toEqual({ "fixture-engine": { enabled: true } });
  });
});

describe("PluginStore refusals", () => {
  it("refuses to install over a clew.json that does not parse, before anything changes", async () => {
    await temp.writeConfig("{ plugins: ");
    await expect(store.install(CLEW_ENGINE_FIXTURE)).rejects.toBeInstanceOf(ConfigError);
    expect(await readdir(temp.home)).toEqual(["clew.json"]);
    expect(await temp.readConfigText()).toBe("{ plugins: ");
  });

  it("names the manifest file and field, a folder without package.json, and a path that does not exist", async () => {
    const manifest = await store.install(brokenFixture("invalid-manifest")).catch((error: unknown) => error);
    expect(manifest).toBeInstanceOf(PluginManifestError);
    expect((manifest as PluginManifestError).message).toContain(
      `${join(brokenFixture("invalid-manifest"), "clew.plugin.json")}: id: is required`,
    );
    await expect(store.install(brokenFixture("register-throws"))).rejects.toThrow(
      /has no package\.json.*--link/,
    );
    const missing = await store.install("./no-such-plugin").catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(PluginInstallError);
    expect((missing as Error).message).toContain("no such file or folder");
    expect(await readdir(temp.home)).toEqual([]);
  });

  it("refuses unknown ids", async () => {
    await expect(store.uninstall("nope")).rejects.toBeInstanceOf(UnknownPluginError);
    await expect(store.setEnabled("nope", false)).rejects.toThrow('Unknown plugin "nope"');
    await store.link(CLEW_ENGINE_FIXTURE);
    await expect(store.setEnabled("nope", true)).rejects.toThrow(
      "Installed or linked plugins: fixture-engine",
    );
  });

  it("refuses to link over an installed copy of the same id", async () => {
    await writeInstallRecords(temp.home, {
      "fixture-engine": { source: "npm", spec: "clew-fixture-engine@1", installedAt: "x", dir: pluginDir() },
    });
    await expect(store.link(CLEW_ENGINE_FIXTURE)).rejects.toThrow(
      /"fixture-engine" is already installed from clew-fixture-engine@1; uninstall it before linking/,
    );
    expect(await readdir(temp.home)).toEqual(["plugins"]);
  });
});
