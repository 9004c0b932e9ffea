import { readdir, readFile } from "node:fs/promises";
import { type ClewConfig, ConfigError, configPath } from "@clew/core";
import JSON5 from "json5";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { applyInstalledPlugin, editClewConfig, removePluginFromConfig } from "../src/index.js";
import { createTempHome } from "./support.js";

let temp: Awaited<ReturnType<typeof createTempHome>>;
beforeEach(async () => {
  temp = await createTempHome("clew-config-edit-");
});
afterEach(async () => {
  await temp.cleanup();
});

const commented = `// my settings
{
  agents: { defaults: { model: "openai/gpt-test" } }, // trailing comma next
  plugins: { entries: { other: { enabled: false } }, },
}
`;

describe("editClewConfig", () => {
  it("creates clew.json when there is none", async () => {
    const result = await editClewConfig(temp.home, (config) => {
      config.plugins = { slots: { contextEngine: "x" } };
    });
    expect(result).toMatchObject({ changed: true, json5Dropped: false });
    expect(result.backupPath).toBeUndefined();
    expect(await temp.readConfig()).toEqual({ plugins: { slots: { contextEngine: "x" } } });
  });

  it("edits the file in place, keeping its comments and JSON5 syntax, and the previous file in clew.json.bak", async () => {
    await temp.writeConfig(commented);
    const result = await editClewConfig(temp.home, (config) => {
      config.plugins = { ...config.plugins, slots: { contextEngine: "x" } };
    });
    expect(result).toMatchObject({
      changed: true,
      json5Dropped: false,
      backupPath: `${configPath(temp.home)}.bak`,
    });
    expect(await readFile(`${configPath(temp.home)}.bak`, "utf8")).toBe(commented);
    const text = await temp.readConfigText();
    expect(text.startsWith("// my settings\n{\n")).toBe(true);
    expect(text).toContain('agents: { defaults: { model: "openai/gpt-test" } }, // trailing comma next');
    expect(JSON5.parse(text)).toEqual({
      agents: { defaults: { model: "openai/gpt-test" } },
      plugins: { entries: { other: { enabled: false } }, slots: { contextEngine: "x" } },
    });
  });

  it("keeps a plain JSON file plain JSON, in its own indentation, and removes what the edit removed", async () => {
    const plain = `{\n    "agents": { "defaults": { "model": "openai/gpt-test" } },\n    "plugins": { "entries": { "other": { "enabled": false } } }\n}\n`;
    await temp.writeConfig(plain);
    const result = await editClewConfig(temp.home, (config) => {
      delete config.agents;
      config.plugins = { ...config.plugins, slots: { contextEngine: "x" } };
    });
    expect(result).toMatchObject({ changed: true, json5Dropped: false });
    const text = await temp.readConfigText();
    expect(JSON.parse(text)).toEqual({
      plugins: { entries: { other: { enabled: false } }, slots: { contextEngine: "x" } },
    });
    expect(text).toContain('\n    "plugins": { "entries": { "other": { "enabled": false } }');
  });

  it("writes plain JSON, and says so, when the file's own text cannot be edited", async () => {
    // A raw line separator inside a string: JSON5 reads it (with a warning), the in-place editor does not.
    const unusual =
      '// notes\n{ agents: { defaults: { model: "openai/gpt-test" } }, plugins: { allow: ["a\u2028b"] } }\n';
    await temp.writeConfig(unusual);
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    try {
      const result = await editClewConfig(temp.home, (config) => {
        config.plugins = { ...config.plugins, slots: { contextEngine: "x" } };
      });
      expect(result).toMatchObject({ changed: true, json5Dropped: true });
    } finally {
      warn.mockRestore();
    }
    expect(await readFile(`${configPath(temp.home)}.bak`, "utf8")).toBe(unusual);
    expect(JSON.parse(await temp.readConfigText())).toEqual({
      agents: { defaults: { model: "openai/gpt-test" } },
      plugins: { allow: ["a\u2028b"], slots: { contextEngine: "x" } },
    });
  });

  it("writes a key named like a built-in member once, however often the file is edited", async () => {
    await temp.writeConfig("// ids\n{ plugins: { entries: { constructor: { enabled: false } } } }\n");
    for (const enabled of [true, false, true]) {
      const result = await editClewConfig(temp.home, (config) => {
        // Object.assign: the member is an own property like any plugin id.
        Object.assign(config.plugins?.entries ?? {}, { constructor: { enabled } });
      });
      expect(result.changed).toBe(true);
    }
    const text = await temp.readConfigText();
    expect(text.match(/constructor/g)).toHaveLength(1);
    expect(JSON5.parse(text)).toEqual({ plugins: { entries: { constructor: { enabled: true } } } });
  });

  it("keeps what the file says as written: CRLF line ends and Infinity", async () => {
    await temp.writeConfig(
      "{\r\n  // limits\r\n  plugins: { entries: { p: { config: { limit: Infinity } } } },\r\n}\r\n",
    );
    const result = await editClewConfig(temp.home, (config) => {
      config.plugins = { ...config.plugins, slots: { contextEngine: "x" } };
    });
    expect(result).toMatchObject({ changed: true, json5Dropped: false });
    const text = await temp.readConfigText();
    expect(text.replace(/\r\n/g, "")).not.toContain("\n");
    const read = JSON5.parse(text) as ClewConfig;
    expect(read.plugins?.entries?.p?.config).toEqual({ limit: Number.POSITIVE_INFINITY });
    expect(read.plugins?.slots).toEqual({ contextEngine: "x" });
  });

  it("never writes a lone surrogate raw, which UTF-8 cannot hold", async () => {
    await temp.writeConfig("// paths\n{ plugins: {} }\n");
    const path = "C:\\odd\ud800name";
    await editClewConfig(temp.home, (config) => {
      config.plugins = { ...config.plugins, load: { paths: [path] } };
    });
    const read = JSON5.parse((await readFile(configPath(temp.home))).toString("utf8")) as ClewConfig;
    expect(read.plugins?.load?.paths).toEqual([path]);
  });

  it("refuses a file that does not parse with ConfigError and leaves it untouched", async () => {
    await temp.writeConfig('{ plugins: { slots: { contextEngine: "x" }');
    const error = await editClewConfig(temp.home, () => undefined).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConfigError);
    expect(await temp.readConfigText()).toBe('{ plugins: { slots: { contextEngine: "x" }');
    expect(await readdir(temp.home)).toEqual(["clew.json"]);
  });

  it("writes nothing when the edit changes nothing, and never writes an edit that makes the config invalid", async () => {
    await temp.writeConfig(commented);
    expect(await editClewConfig(temp.home, () => undefined)).toMatchObject({ changed: false });
    const invalid = await editClewConfig(temp.home, (config) => {
      (config.plugins as Record<string, unknown>).slots = { contextEngine: 42 };
    }).catch((caught: unknown) => caught);
    expect(invalid).toBeInstanceOf(ConfigError);
    expect(await temp.readConfigText()).toBe(commented);
    expect(await readdir(temp.home)).toEqual(["clew.json"]);
  });
});

describe("plugin config changes", () => {
  it("an install enables the plugin and selects a context engine, remembering the previous slot", () => {
    const config: ClewConfig = {
      plugins: { slots: { contextEngine: "older" }, entries: { p: { config: { a: 1 } } } },
    };
    const selection = applyInstalledPlugin(
      config,
      { id: "p", kind: ["context-engine"] },
      { linkDir: "/dev/p" },
    );
    expect(selection).toEqual({ selectedContextEngine: true, previousContextEngine: "older" });
    expect(config.plugins).toEqual({
      slots: { contextEngine: "p" },
      entries: { p: { config: { a: 1 }, enabled: true } },
      load: { paths: ["/dev/p"] },
    });
    const tools: ClewConfig = {};
    expect(applyInstalledPlugin(tools, { id: "t", kind: ["tools"] })).toEqual({
      selectedContextEngine: false,
    });
    expect(tools.plugins?.slots).toBeUndefined();
  });

  it("an uninstall resets every slot the plugin held, removes its mentions and keeps everything else", () => {
    const config: ClewConfig = {
      agents: { defaults: { historyLimit: 3 } },
      plugins: {
        allow: ["p", "q"],
        deny: ["p"],
        slots: { contextEngine: "p", memory: "p" },
        entries: { p: { enabled: true }, q: { enabled: false } },
        load: { paths: ["/dev/p", "/dev/q"] },
      },
    };
    const removal = removePluginFromConfig(config, "p", ["/dev/p"]);
    expect(removal).toEqual({
      resetSlots: ["contextEngine", "memory"],
      removedLoadPaths: ["/dev/p"],
      removedEntry: true,
    });
    expect(config).toEqual({
      agents: { defaults: { historyLimit: 3 } },
      plugins: { allow: ["q"], entries: { q: { enabled: false } }, load: { paths: ["/dev/q"] } },
    });
    const other: ClewConfig = { plugins: { slots: { contextEngine: "x", memory: "p" }, entries: { p: {} } } };
    removePluginFromConfig(other, "p", []);
    expect(other).toEqual({ plugins: { slots: { contextEngine: "x" } } });
    const only: ClewConfig = { plugins: { slots: { contextEngine: "p" } } };
    removePluginFromConfig(only, "p", []);
    expect(only).toEqual({});
  });
});
