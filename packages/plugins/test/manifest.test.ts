import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PluginManifestError, readPluginManifest } from "../src/index.js";
import { brokenFixture, CLEW_ENGINE_FIXTURE, createTempHome, OPENCLAW_ENGINE_FIXTURE } from "./support.js";

let temp: Awaited<ReturnType<typeof createTempHome>>;
beforeEach(async () => {
  temp = await createTempHome("clew-manifest-");
});
afterEach(async () => {
  await temp.cleanup();
});

let folders = 0;

/** A new plugin folder in the temp dir with the given files (objects are written as JSON). */
async function pluginFolder(files: Record<string, unknown>): Promise<string> {
  folders += 1;
  const dir = join(temp.home, `plugin-${folders}`);
  await mkdir(dir, { recursive: true });
  for (const [name, content] of Object.entries(files)) {
    await writeFile(join(dir, name), typeof content === "string" ? content : JSON.stringify(content));
  }
  return dir;
}

async function manifestError(dir: string): Promise<PluginManifestError> {
  const error = await readPluginManifest(dir).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(PluginManifestError);
  return error as PluginManifestError;
}

describe("readPluginManifest", () => {
  it("reads a Clew manifest with the entry from package.json main and the version from package.json", async () => {
    const manifest = await readPluginManifest(CLEW_ENGINE_FIXTURE);
    expect(manifest).toMatchObject({
      id: "fixture-engine",
      name: "Fixture engine",
      kind: ["context-engine"],
      version: "1.2.0",
      format: "clew",
      entry: join(CLEW_ENGINE_FIXTURE, "index.mjs"),
      manifestFile: join(CLEW_ENGINE_FIXTURE, "clew.plugin.json"),
      packageName: "clew-fixture-engine",
    });
  });

  it("reads an OpenClaw manifest with the entry from package.json openclaw.extensions", async () => {
    const manifest = await readPluginManifest(OPENCLAW_ENGINE_FIXTURE);
    expect(manifest).toMatchObject({
      id: "openclaw-fixture",
      format: "openclaw",
      kind: ["context-engine"],
      version: "0.3.0",
      entry: join(OPENCLAW_ENGINE_FIXTURE, "index.mts"),
    });
    expect(manifest.configSchema).toMatchObject({ type: "object" });
  });

  it("takes the entry from the manifest, then exports, then main, then index.js", async () => {
    const files = { "a.mjs": "", "b.mjs": "", "c.mjs": "", "index.js": "" };
    const declared = await pluginFolder({
      ...files,
      "clew.plugin.json": { id: "p", entry: "a.mjs" },
      "package.json": { exports: { ".": { import: "./b.mjs" } }, main: "c.mjs" },
    });
    expect((await readPluginManifest(declared)).entry).toBe(join(declared, "a.mjs"));
    const fromExports = await pluginFolder({
      ...files,
      "clew.plugin.json": { id: "p", kind: ["context-engine", "memory"] },
      "package.json": { exports: { ".": { types: "./x.d.ts", import: "./b.mjs" } }, main: "c.mjs" },
    });
    const exportsManifest = await readPluginManifest(fromExports);
    expect(exportsManifest.entry).toBe(join(fromExports, "b.mjs"));
    expect(exportsManifest.kind).toEqual(["context-engine", "memory"]);
    const fromMain = await pluginFolder({
      ...files,
      "clew.plugin.json": { id: "p" },
      "package.json": { main: "c.mjs" },
    });
    expect((await readPluginManifest(fromMain)).entry).toBe(join(fromMain, "c.mjs"));
    const fallback = await pluginFolder({ "index.js": "", "clew.plugin.json": { id: "p" } });
    const fallbackManifest = await readPluginManifest(fallback);
    expect(fallbackManifest.entry).toBe(join(fallback, "index.js"));
    expect(fallbackManifest.configSchema).toEqual({});
  });

  it("names the file and every bad field of an invalid manifest", async () => {
    const error = await manifestError(brokenFixture("invalid-manifest"));
    expect(error.file).toBe(join(brokenFixture("invalid-manifest"), "clew.plugin.json"));
    expect(error.problems).toEqual(
      expect.arrayContaining([
        { field: "id", message: "is required" },
        { field: "kind", message: "must be string or array" },
      ]),
    );
    expect(error.message).toContain(`${error.file}: id: is required`);
  });

  it("requires configSchema in an OpenClaw manifest but not in a Clew one", async () => {
    const dir = await pluginFolder({ "openclaw.plugin.json": { id: "p" }, "index.js": "" });
    const error = await manifestError(dir);
    expect(error.file).toBe(join(dir, "openclaw.plugin.json"));
    expect(error.problems).toEqual([{ field: "configSchema", message: "is required" }]);
  });

  it("reports a missing entry module, an entry outside the folder and a schema that does not compile", async () => {
    const missing = await manifestError(
      await pluginFolder({ "clew.plugin.json": { id: "p", entry: "gone.mjs" } }),
    );
    expect(missing.problems[0]?.field).toBe("entry");
    expect(missing.problems[0]?.message).toMatch(/gone\.mjs \(the manifest\) does not exist/);
    const outside = await manifestError(
      await pluginFolder({ "clew.plugin.json": { id: "p", entry: "../x.mjs" } }),
    );
    expect(outside.problems[0]?.message).toContain("outside the plugin folder");
    const badSchema = await manifestError(
      await pluginFolder({
        "clew.plugin.json": { id: "p", configSchema: { type: "nonsense" } },
        "index.js": "",
      }),
    );
    expect(badSchema.problems[0]?.field).toBe("configSchema");
  });

  it("reports a folder without a manifest, a syntax error with its line, and an unsafe id", async () => {
    const none = await manifestError(await pluginFolder({ "index.js": "" }));
    expect(none.message).toContain("no clew.plugin.json or openclaw.plugin.json");
    const syntax = await manifestError(
      await pluginFolder({ "clew.plugin.json": '{\n  "id": "p",\n  kind: [\n}' }),
    );
    expect(syntax.message).toMatch(/not valid JSON: .*\(line 4, column 1\)/);
    const unsafe = await manifestError(
      await pluginFolder({ "clew.plugin.json": { id: "../escape" }, "index.js": "" }),
    );
    expect(unsafe.problems[0]).toMatchObject({
      field: "id",
      message: expect.stringContaining("letters, digits"),
    });
  });
});
