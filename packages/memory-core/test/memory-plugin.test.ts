import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createContextEngineRegistry, MemoryLogger } from "@clew/core";
import {
  buildMemorySystemPromptAddition,
  memoryPromptRegistry,
  type PluginApi,
  type PluginRegister,
} from "@clew/plugin-sdk";
import { loadPlugins } from "@clew/plugins";
import { afterEach, describe, expect, it } from "vitest";
import { buildMemoryPromptSection, registerMemoryCore } from "../src/index.js";

afterEach(() => {
  memoryPromptRegistry.clear();
});

describe("buildMemoryPromptSection", () => {
  it("names only the memory tools the run has, and is empty without them", () => {
    const both = buildMemoryPromptSection({
      availableTools: new Set(["memory_search", "memory_get", "write"]),
    });
    expect(both[0]).toBe("## Memory");
    expect(both.join("\n")).toContain("run memory_search, then memory_get");
    expect(both.join("\n")).toContain("append it to memory/YYYY-MM-DD.md");
    expect(both.at(-1)).toBe("When a note informs your answer, cite it as <path>#L<from>-L<to>.");
    const getOnly = buildMemoryPromptSection({
      availableTools: new Set(["memory_get"]),
      citationsMode: "off",
    });
    expect(getOnly.join("\n")).not.toContain("memory_search");
    expect(getOnly.join("\n")).not.toContain("cite");
    expect(buildMemoryPromptSection({ availableTools: new Set(["read"]) })).toEqual([]);
  });
});

describe("memory-core plugin", () => {
  it("has a clew.plugin.json of kind memory whose entry is the register function", async () => {
    const root = join(import.meta.dirname, "..");
    const manifest = JSON.parse(await readFile(join(root, "clew.plugin.json"), "utf8"));
    expect(manifest).toMatchObject({ id: "memory-core", kind: "memory", entry: "src/plugin.ts" });
    const entry = (await import(join(root, manifest.entry))) as { default: PluginRegister };
    expect(entry.default).toBe(registerMemoryCore);
  });

  it("loads through Clew's plugin loader as a memory plugin with its two tools", async () => {
    const home = await mkdtemp(join(tmpdir(), "clew-memory-core-"));
    try {
      const registered: string[] = [];
      const report = await loadPlugins({
        home,
        config: { plugins: { load: { paths: [join(import.meta.dirname, "..")] } } },
        registry: createContextEngineRegistry(),
        logger: new MemoryLogger(),
        tools: {
          register: (tool) => {
            registered.push(tool.name);
            return { ok: true };
          },
        },
      });
      expect(report.plugins).toMatchObject([
        { id: "memory-core", kind: ["memory"], loaded: true, toolNames: ["memory_search", "memory_get"] },
      ]);
      expect(registered).toEqual(["memory_search", "memory_get"]);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });

  it("registers both tools for its workspace and becomes the memory prompt section", async () => {
    const tools: string[] = [];
    const api: PluginApi = {
      id: "memory-core",
      name: "Memory (core)",
      rootDir: "/unused",
      paths: { home: "/home/clew", stateDir: "/home/clew/plugin-state/memory-core" },
      pluginConfig: {},
      config: {},
      logger: new MemoryLogger(),
      registerContextEngine: () => {},
      registerTool: (tool) => void tools.push(tool.name),
      registerCommand: () => {},
    };
    await registerMemoryCore(api);
    expect(tools).toEqual(["memory_search", "memory_get"]);
    expect(memoryPromptRegistry.owner()).toBe("plugin:memory-core");
    const addition = buildMemorySystemPromptAddition({ availableTools: new Set(tools) });
    expect(addition?.startsWith("## Memory\nDurable notes live in the workspace")).toBe(true);
  });
});
