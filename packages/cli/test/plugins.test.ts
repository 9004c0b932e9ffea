import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError, describeError, isClewError } from "@clew/core";
import { Command, CommanderError } from "commander";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { registerPluginsCommands } from "../src/commands/plugins.js";
import type { CliIo } from "../src/io.js";

const FIXTURES = join(import.meta.dirname, "../../plugins/test/fixtures");
const CLEW_ENGINE = join(FIXTURES, "clew-engine");

let home: string;
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), "clew-cli-plugins-"));
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

/**
 * Runs `clew plugins ...` in-process with the same exit statuses as `runCli`: 0, 1 for usage and
 * Clew errors, 2 for config errors.
 */
async function clew(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const io: CliIo = {
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
    env: { CLEW_HOME: home },
    cwd: FIXTURES,
  };
  const program = new Command("clew")
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr });
  registerPluginsCommands(program, io);
  try {
    await program.parseAsync(argv, { from: "user" });
    return { code: 0, stdout, stderr };
  } catch (error) {
    if (error instanceof CommanderError) return { code: error.exitCode, stdout, stderr };
    if (!isClewError(error)) throw error;
    stderr += `clew: ${describeError(error)}\n`;
    return { code: error instanceof ConfigError ? 2 : 1, stdout, stderr };
  }
}

describe("clew plugins", () => {
  it("installs a folder, lists and shows it, then uninstalls it and resets the slot", async () => {
    const installed = await clew("plugins", "install", "./clew-engine");
    expect(installed.code).toBe(0);
    expect(installed.stdout).toContain(`Installed fixture-engine 1.2.0 from path ${CLEW_ENGINE}`);
    expect(installed.stdout).toContain(
      "selected as the context engine (plugins.slots.contextEngine = fixture-engine)",
    );
    expect(installed.stdout).toContain("Restart the gateway to apply.");

    const listed = await clew("plugins", "list");
    const [header, row] = listed.stdout.trim().split("\n");
    expect(header?.split(/\s+/)).toEqual(["ID", "KIND", "VERSION", "SOURCE", "ENABLED", "SLOT", "STATUS"]);
    expect(row?.split(/\s+/)).toEqual([
      "fixture-engine",
      "context-engine",
      "1.2.0",
      "path",
      "yes",
      "contextEngine",
      "loaded",
    ]);

    const info = JSON.parse((await clew("plugins", "info", "fixture-engine", "--json")).stdout);
    expect(info).toMatchObject({
      id: "fixture-engine",
      loaded: true,
      slots: ["contextEngine"],
      record: { source: "path", spec: CLEW_ENGINE, version: "1.2.0" },
      contextEngineIds: ["fixture-engine"],
      toolNames: ["fixture_echo"],
      commandNames: ["fixture"],
      dir: join(home, "plugins", "fixture-engine"),
    });
    expect(info.record.integrity).toMatch(/^sha512-/);
    const text = (await clew("plugins", "info", "fixture-engine")).stdout;
    expect(text).toContain("fixture-engine (Fixture engine) 1.2.0");
    expect(text).toContain("  commands: /fixture");

    const uninstalled = await clew("plugins", "uninstall", "fixture-engine");
    expect(uninstalled.stdout).toContain("plugins.slots.contextEngine reset to its default (legacy)");
    expect(JSON.parse(await readFile(join(home, "clew.json"), "utf8"))).toEqual({});
    expect((await clew("plugins", "list")).stdout).toMatch(/^No plugins installed/);
  });

  it("links a folder, disables and enables it, and shows load errors in the list", async () => {
    expect((await clew("plugins", "install", "--link", "./clew-engine")).stdout).toContain(
      "Linked fixture-engine 1.2.0 from",
    );
    expect((await clew("plugins", "install", "-l", "./broken/register-throws")).code).toBe(0);
    expect((await clew("plugins", "disable", "fixture-engine")).stdout).toContain(
      "Disabled fixture-engine (plugins.entries.fixture-engine.enabled = false)",
    );
    const rows = JSON.parse((await clew("plugins", "list", "--json")).stdout) as Array<
      Record<string, unknown>
    >;
    expect(
      rows.map(({ id, source, enabled, loaded, slots, error }) => ({
        id,
        source,
        enabled,
        loaded,
        slots,
        error,
      })),
    ).toEqual([
      { id: "fixture-engine", source: "link", enabled: false, loaded: false, slots: [], error: null },
      {
        id: "register-throws",
        source: "link",
        enabled: true,
        loaded: false,
        slots: ["contextEngine"],
        error: { stage: "register", message: "register(api) threw: register exploded" },
      },
    ]);
    const table = (await clew("plugins", "list")).stdout;
    expect(table).toMatch(/fixture-engine .* disabled/);
    expect(table).toContain("error (register): register(api) threw: register exploded");
    await clew("plugins", "enable", "fixture-engine");
    expect(
      JSON.parse(await readFile(join(home, "clew.json"), "utf8")).plugins.entries["fixture-engine"],
    ).toEqual({
      enabled: true,
    });
  });

  it("fails with status 1 and a clear message for unknown plugins and bad specs, 2 for a broken config", async () => {
    const unknown = await clew("plugins", "info", "nope");
    expect(unknown).toMatchObject({ code: 1, stdout: "" });
    expect(unknown.stderr).toContain('Unknown plugin "nope"');
    expect((await clew("plugins", "uninstall", "nope")).code).toBe(1);
    const missing = await clew("plugins", "install", "./missing-folder");
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("no such file or folder");
    const manifest = await clew("plugins", "install", "-l", "./broken/invalid-manifest");
    expect(manifest.code).toBe(1);
    expect(manifest.stderr).toContain("clew.plugin.json: id: is required");
    await writeFile(join(home, "clew.json"), "{ plugins: ");
    const broken = await clew("plugins", "enable", "x");
    expect(broken.code).toBe(2);
    expect(broken.stderr).toContain("clew.json");
  });
});
