import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ConfigError, loadConfig, parseConfig } from "../../src/index.js";

let home: string;
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), "clew-config-"));
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

describe("loadConfig", () => {
  it("treats a missing clew.json as an empty config", async () => {
    expect(await loadConfig(home)).toEqual({ config: {}, path: join(home, "clew.json"), exists: false });
  });

  it("reads JSON5 with comments and trailing commas", async () => {
    await writeFile(
      join(home, "clew.json"),
      `{\n  // engine\n  plugins: { slots: { contextEngine: "lossless", }, },\n}\n`,
    );
    const loaded = await loadConfig(home);
    expect(loaded.config.plugins?.slots?.contextEngine).toBe("lossless");
  });

  it("names the file and line of a syntax error and leaves the file alone", async () => {
    const text = `{\n  plugins: {\n    slots: { contextEngine: "x" ]\n  }\n}\n`;
    await writeFile(join(home, "clew.json"), text);
    const error = await loadConfig(home).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toContain(`${join(home, "clew.json")}:3`);
    expect(await readFile(join(home, "clew.json"), "utf8")).toBe(text);
  });

  it("names the field and line of a schema error", () => {
    const text = `{\n  agents: {\n    defaults: {\n      compaction: { timeoutSeconds: "soon" },\n    },\n  },\n}`;
    const error = (() => {
      try {
        parseConfig(text, "clew.json");
      } catch (caught) {
        return caught as ConfigError;
      }
    })();
    expect(error?.problems).toEqual([
      { path: "agents.defaults.compaction.timeoutSeconds", message: "must be number", line: 4 },
    ]);
  });

  it("reports a misspelt key in a known section", () => {
    expect(() => parseConfig(`{ plugins: { slot: { contextEngine: "x" } } }`, "clew.json")).toThrow(
      "clew.json:1: plugins.slot: unknown key",
    );
  });

  it("rejects a config that is not an object", () => {
    expect(() => parseConfig("[1, 2]", "clew.json")).toThrow("the config must be an object");
  });
});
