import { join } from "node:path";
import { createContextEngineRegistry, MemoryLogger } from "@clew/core";
import type { PluginToolFactory } from "@clew/plugin-sdk";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadPlugins, type PluginTool, type PluginToolSink } from "../src/index.js";
import { createTempHome, RecordingSink, writeFiles } from "./support.js";

/** A sink like the agent's ToolRegistry, which also keeps tool factories by owner. */
class FactorySink extends RecordingSink<PluginTool> implements PluginToolSink {
  readonly factories: Array<{ factory: PluginToolFactory; owner: string }> = [];

  registerFactory(factory: PluginToolFactory, owner: string): void {
    this.factories.push({ factory, owner });
  }

  override unregisterOwner(owner: string): void {
    super.unregisterOwner(owner);
    for (let index = this.factories.length - 1; index >= 0; index--)
      if (this.factories[index]?.owner === owner) this.factories.splice(index, 1);
  }
}

let temp: Awaited<ReturnType<typeof createTempHome>>;
beforeEach(async () => {
  temp = await createTempHome("clew-tool-factories-");
});
afterEach(async () => {
  await temp.cleanup();
});

/** A linked plugin whose register(api) is `body`, loaded into `tools`. */
async function loadPluginWith(body: string, tools: PluginToolSink) {
  const dir = join(temp.home, "session-tools");
  await writeFiles(dir, {
    "clew.plugin.json": { id: "session-tools", entry: "index.mjs" },
    "index.mjs": `export default function register(api) {\n${body}\n}\n`,
  });
  const logger = new MemoryLogger();
  const report = await loadPlugins({
    home: temp.home,
    config: { plugins: { load: { paths: [dir] } } },
    registry: createContextEngineRegistry(),
    logger,
    tools,
  });
  const [plugin] = report.plugins;
  if (plugin === undefined) throw new Error("the plugin was not discovered");
  return { plugin, logger };
}

const FACTORY = `api.registerTool((context) => ({
    name: "whoami",
    description: "Names the session.",
    parameters: { type: "object", properties: {} },
    async execute() {
      return { content: [{ type: "text", text: context.sessionKey }], details: {} };
    },
  }), { names: ["whoami"] });`;

describe("registerTool with a factory", () => {
  it("stores the factory under plugin:<id> and lists the names it declares", async () => {
    const sink = new FactorySink();
    const { plugin } = await loadPluginWith(FACTORY, sink);
    expect(plugin).toMatchObject({ loaded: true, toolNames: ["whoami"], diagnostics: [] });
    expect(sink.entries.size).toBe(0);
    const [stored] = sink.factories;
    expect(stored?.owner).toBe("plugin:session-tools");
    const tool = stored?.factory({ sessionKey: "agent:main:one" }) as PluginTool;
    const result = await tool.execute("1", {});
    expect(result.content).toEqual([{ type: "text", text: "agent:main:one" }]);
  });

  it("is refused with a diagnostic by a host whose sink takes no factories, and the plugin still loads", async () => {
    const { plugin, logger } = await loadPluginWith(FACTORY, new RecordingSink<PluginTool>());
    expect(plugin.loaded).toBe(true);
    expect(plugin.toolNames).toEqual([]);
    expect(plugin.diagnostics).toEqual([
      { level: "error", message: "registerTool: this host takes no tool factories" },
    ]);
    expect(logger.messages("error").join("\n")).toContain("this host takes no tool factories");
  });

  it("is removed again when the plugin fails to load after registering it", async () => {
    const sink = new FactorySink();
    const { plugin } = await loadPluginWith(`${FACTORY}\n  throw new Error("late failure");`, sink);
    expect(plugin).toMatchObject({ loaded: false, error: { stage: "register" } });
    expect(sink.factories).toEqual([]);
  });
});
