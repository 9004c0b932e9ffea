import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  type ClewConfig,
  configPath,
  createContextEngineRegistry,
  loadConfig,
  MemoryLogger,
  resolveContextEngine,
} from "@clew/core";
import type { PluginCommand } from "@clew/plugin-sdk";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadPlugins, type PluginTool } from "../src/index.js";
import { brokenFixture, CLEW_ENGINE_FIXTURE, createTempHome, RecordingSink } from "./support.js";

let temp: Awaited<ReturnType<typeof createTempHome>>;
beforeEach(async () => {
  temp = await createTempHome("clew-loader-");
});
afterEach(async () => {
  await temp.cleanup();
});

/** Writes `config`, reads it back like the gateway does, and loads its plugins. */
async function loadWith(
  config: ClewConfig,
  options: { mode?: "runtime" | "discovery"; registerTimeoutMs?: number } = {},
) {
  await temp.writeConfig(config);
  const loaded = (await loadConfig(temp.home)).config;
  const registry = createContextEngineRegistry();
  const logger = new MemoryLogger();
  const tools = new RecordingSink<PluginTool>();
  const commands = new RecordingSink<PluginCommand>();
  const report = await loadPlugins({
    home: temp.home,
    config: loaded,
    registry,
    logger,
    tools,
    commands,
    ...options,
  });
  const resolve = () => resolveContextEngine(registry, { config: loaded, logger });
  return { report, registry, logger, tools, commands, resolve };
}

const linked = (dirs: string[], extra: NonNullable<ClewConfig["plugins"]> = {}): ClewConfig => ({
  plugins: { load: { paths: dirs }, ...extra },
});

describe("loadPlugins", () => {
  it("registers a Clew plugin's engine, tool and command under plugin:<id> with its validated config", async () => {
    const { report, registry, tools, commands, resolve } = await loadWith(
      linked([CLEW_ENGINE_FIXTURE], {
        slots: { contextEngine: "fixture-engine" },
        entries: { "fixture-engine": { config: { keepLast: 1 } } },
      }),
    );
    expect(report.plugins).toMatchObject([
      {
        id: "fixture-engine",
        kind: ["context-engine"],
        version: "1.2.0",
        source: "link",
        enabled: true,
        loaded: true,
        contextEngineIds: ["fixture-engine"],
        toolNames: ["fixture_echo"],
        commandNames: ["fixture"],
        diagnostics: [],
      },
    ]);
    expect(registry.get("fixture-engine")).toMatchObject({
      owner: "plugin:fixture-engine",
      lifecycle: "runtime",
    });
    expect(tools.entries.get("fixture_echo")?.owner).toBe("plugin:fixture-engine");
    expect(await commands.entries.get("fixture")?.item.handler({ sessionKey: "k", args: "" })).toBe(
      "hello from fixture-engine",
    );
    const resolved = await resolve();
    expect(resolved.effectiveId).toBe("fixture-engine");
    const assembled = await resolved.engine.assemble({
      sessionId: "s",
      messages: [
        { role: "user", content: "one", timestamp: 1 },
        { role: "user", content: "two", timestamp: 2 },
      ],
    });
    // keepLast from the entry's config, label from the schema's default.
    expect(assembled.messages).toEqual([{ role: "user", content: "two", timestamp: 2 }]);
    expect(assembled.systemPromptAddition).toBe("[engine fixture]");
  });

  it.each([
    ["register-throws", "register", /^register\(api\) threw: register exploded$/, "not-registered"],
    ["import-fails", "import", /the module throws while it is evaluated/, "not-registered"],
    ["invalid-manifest", "manifest", /clew\.plugin\.json: id: is required/, "not-registered"],
    [
      "bad-config",
      "config",
      /plugins\.entries\.bad-config\.config\.maxItems: must be integer \(expected \{"type":"integer","minimum":1\}\)/,
      "not-registered",
    ],
  ] as const)(
    "reports %s at stage %s and the agent still resolves legacy",
    async (name, stage, message, fallback) => {
      const { report, registry, logger, resolve } = await loadWith(
        linked([brokenFixture(name)], {
          slots: { contextEngine: name },
          entries: name === "bad-config" ? { "bad-config": { config: { maxItems: "ten" } } } : {},
        }),
      );
      expect(report.plugins).toHaveLength(1);
      const [plugin] = report.plugins;
      expect(plugin).toMatchObject({ id: name, loaded: false, error: { stage } });
      expect(plugin?.error?.message).toMatch(message);
      expect(registry.list().map((registration) => registration.owner)).toEqual(["core"]);
      expect(logger.messages("error")[0]).toContain(`[plugins] ${name}: ${stage} failed:`);
      const resolved = await resolve();
      expect(resolved).toMatchObject({ effectiveId: "legacy", fallbackReason: fallback });
    },
  );

  it("names the config file and the config path of a config that fails its schema", async () => {
    const { report } = await loadWith(
      linked([brokenFixture("bad-config")], { entries: { "bad-config": { config: {} } } }),
    );
    expect(report.plugins[0]?.error?.message).toBe(
      `plugin "bad-config" has an invalid config in ${configPath(temp.home)}:\n` +
        `  plugins.entries.bad-config.config.maxItems: is required (expected {"type":"object","required":["maxItems"],"properties":{"maxItems":{"type":"integer","minimum":1}}})`,
    );
  });

  it.each([
    ["factory-throws", "factory-failed", /factory exploded/],
    ["no-assemble", "contract-invalid", /missing assemble\(\)/],
  ] as const)(
    "loads %s, whose engine then falls back to legacy (%s) when resolved",
    async (name, fallback, logged) => {
      const { report, resolve, logger } = await loadWith(
        linked([brokenFixture(name)], { slots: { contextEngine: name } }),
      );
      expect(report.plugins[0]).toMatchObject({ loaded: true, contextEngineIds: [name] });
      expect(await resolve()).toMatchObject({ effectiveId: "legacy", fallbackReason: fallback });
      expect(logger.messages("error").join("\n")).toMatch(logged);
    },
  );

  it("refuses the reserved legacy id and an engine id another plugin holds, with the reference diagnostics", async () => {
    const { report, registry, logger } = await loadWith(
      linked([CLEW_ENGINE_FIXTURE, brokenFixture("duplicate-engine"), brokenFixture("reserved-legacy")]),
    );
    const diagnostics = Object.fromEntries(report.plugins.map((plugin) => [plugin.id, plugin.diagnostics]));
    expect(diagnostics).toEqual({
      "fixture-engine": [],
      "duplicate-engine": [
        {
          level: "error",
          message: "context engine already registered: fixture-engine (plugin:fixture-engine)",
        },
      ],
      "reserved-legacy": [{ level: "error", message: "context engine id reserved by core: legacy" }],
    });
    expect(report.plugins.every((plugin) => plugin.loaded)).toBe(true);
    expect(registry.get("legacy")?.owner).toBe("core");
    expect(registry.get("fixture-engine")?.owner).toBe("plugin:fixture-engine");
    expect(logger.messages("error")).toContain(
      "[plugins] reserved-legacy: context engine id reserved by core: legacy",
    );
  });

  it("lists disabled plugins without importing them, per entry and with the global switch", async () => {
    const perEntry = await loadWith(
      linked([brokenFixture("import-fails"), CLEW_ENGINE_FIXTURE], {
        entries: { "import-fails": { enabled: false } },
      }),
    );
    expect(
      perEntry.report.plugins.map(({ id, enabled, loaded, error }) => ({ id, enabled, loaded, error })),
    ).toEqual([
      { id: "import-fails", enabled: false, loaded: false, error: undefined },
      { id: "fixture-engine", enabled: true, loaded: true, error: undefined },
    ]);
    const globallyOff = await loadWith(
      linked([brokenFixture("import-fails"), CLEW_ENGINE_FIXTURE], { enabled: false }),
    );
    expect(globallyOff.report.plugins.map((plugin) => plugin.loaded)).toEqual([false, false]);
    expect(globallyOff.logger.records).toEqual([]);
  });

  it("registers engines for inspection only in discovery mode", async () => {
    const { registry, resolve } = await loadWith(
      linked([CLEW_ENGINE_FIXTURE], { slots: { contextEngine: "fixture-engine" } }),
      { mode: "discovery" },
    );
    expect(registry.get("fixture-engine")?.lifecycle).toBe("readOnlyDiscovery");
    expect(await resolve()).toMatchObject({ effectiveId: "legacy", fallbackReason: "discovery-only" });
  });

  it("gives up on a register(api) that never settles", async () => {
    const { report } = await loadWith(linked([brokenFixture("register-hangs")]), { registerTimeoutMs: 30 });
    expect(report.plugins[0]?.error).toEqual({
      stage: "register",
      message: "register(api) did not finish within 30 ms",
    });
  });

  it("reports an unreadable installs.json as a problem and still loads linked plugins", async () => {
    await temp.writeConfig({});
    await mkdir(join(temp.home, "plugins"));
    await writeFile(join(temp.home, "plugins", "installs.json"), "{ not json");
    const { report } = await loadWith(linked([CLEW_ENGINE_FIXTURE]));
    expect(report.problems[0]).toContain("installs.json is not valid JSON");
    expect(report.plugins.map((plugin) => plugin.loaded)).toEqual([true]);
  });
});
