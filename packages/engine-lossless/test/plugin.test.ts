import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createContextEngineRegistry, MemoryLogger, resolveContextEngine } from "@clew/core";
import { loadPlugins } from "@clew/plugins";
import { afterEach, beforeEach, describe, expect, it, onTestFinished } from "vitest";
import type { LosslessEngine } from "../src/lossless-engine.js";
import { recallToolsOf } from "./support/recall.js";
import { writeTinyVectors } from "./support/word-vectors.js";

let home: string;
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), "clew-lossless-plugin-"));
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

/** The engine the linked plugin makes, with `pluginConfig` as its config entry. */
async function pluginEngine(pluginConfig: Record<string, unknown>) {
  const registry = createContextEngineRegistry();
  const logger = new MemoryLogger();
  const config = {
    plugins: {
      load: { paths: [join(import.meta.dirname, "..")] },
      slots: { contextEngine: "lossless" },
      entries: { lossless: { config: pluginConfig } },
    },
  };
  await loadPlugins({ home, config, registry, logger });
  const engine = (await registry.get("lossless")?.factory({ config, agentDir: home })) as LosslessEngine;
  return { engine, config, logger };
}

describe("the lossless plugin", () => {
  it("loads as a linked plugin, registering the engine under its id, which the slot then resolves", async () => {
    const registry = createContextEngineRegistry();
    const logger = new MemoryLogger();
    const config = {
      plugins: { load: { paths: [join(import.meta.dirname, "..")] }, slots: { contextEngine: "lossless" } },
    };
    const report = await loadPlugins({ home, config, registry, logger });
    expect(report.plugins.find((plugin) => plugin.id === "lossless")).toMatchObject({ loaded: true });
    expect(registry.get("lossless")?.owner).toBe("plugin:lossless");
    const resolved = await resolveContextEngine(registry, { config, agentDir: home, logger });
    expect(resolved.effectiveId).toBe("lossless");
    expect(resolved.engine.info).toMatchObject({ id: "lossless", ownsCompaction: true });
    await resolved.engine.dispose?.();
  });

  it("takes wordVectors from the plugin's config entry, and refuses a config the manifest does not allow", async () => {
    // Written as the READMEs show it: `~/` is the user's home folder.
    await writeTinyVectors(home, "vectors.txt");
    const wordVectors = "~/vectors.txt";
    const userHome = process.env.HOME;
    process.env.HOME = home;
    onTestFinished(() => {
      process.env.HOME = userHome;
    });
    const { engine, config, logger } = await pluginEngine({ wordVectors });
    await engine.afterTurn({
      sessionId: "s",
      sessionFile: "memory:s",
      messages: [{ role: "user", content: "I am halfway through Piranesi.", timestamp: 1 }],
      prePromptMessageCount: 0,
    });
    const hits = (await recallToolsOf(engine, "s").search.execute("1", { query: "which novel" })).details
      .hits;
    expect(hits).toMatchObject([{ id: "m1", matchedBy: ["meaning"] }]);
    await engine.dispose();

    const wrong = {
      ...config,
      plugins: { ...config.plugins, entries: { lossless: { config: { wordVectors: 3 } } } },
    };
    const report = await loadPlugins({
      home,
      config: wrong,
      registry: createContextEngineRegistry(),
      logger,
    });
    const entry = report.plugins.find((plugin) => plugin.id === "lossless");
    expect(entry?.loaded).toBe(false);
    expect(JSON.stringify(entry)).toContain("wordVectors");
  });

  it("searches by meaning with no config, words alone with wordVectors: false, and refuses true", async () => {
    const messages = [
      { role: "user" as const, content: "I bought a used Volvo last spring.", timestamp: 1 },
      { role: "user" as const, content: "We had soup for lunch.", timestamp: 2 },
    ];
    const hitsFor = async (pluginConfig: Record<string, unknown>) => {
      const { engine } = await pluginEngine(pluginConfig);
      await engine.afterTurn({ sessionId: "s", sessionFile: "memory:s", messages, prePromptMessageCount: 0 });
      const hits = (await recallToolsOf(engine, "s").search.execute("1", { query: "which car" })).details
        .hits;
      await engine.dispose();
      return hits;
    };
    expect(await hitsFor({})).toMatchObject([{ id: "m1", matchedBy: ["meaning"] }]);
    expect(await hitsFor({ wordVectors: false })).toEqual([]);
    const report = await loadPlugins({
      home,
      config: {
        plugins: {
          load: { paths: [join(import.meta.dirname, "..")] },
          entries: { lossless: { config: { wordVectors: true } } },
        },
      },
      registry: createContextEngineRegistry(),
      logger: new MemoryLogger(),
    });
    const entry = report.plugins.find((plugin) => plugin.id === "lossless");
    expect(entry?.loaded).toBe(false);
    expect(JSON.stringify(entry)).toContain("wordVectors");
  });

  it('takes wordVectors: "builtin" as the shipped table, not as a file named builtin', async () => {
    const { engine, logger } = await pluginEngine({ wordVectors: "builtin" });
    await engine.afterTurn({
      sessionId: "s",
      sessionFile: "memory:s",
      messages: [
        { role: "user", content: "I bought a used Volvo last spring.", timestamp: 1 },
        { role: "user", content: "We had soup for lunch.", timestamp: 2 },
      ],
      prePromptMessageCount: 0,
    });
    const hits = (await recallToolsOf(engine, "s").search.execute("1", { query: "which car" })).details.hits;
    expect(hits).toMatchObject([{ id: "m1", matchedBy: ["meaning"] }]);
    expect(logger.records.filter((record) => record.level === "warn")).toEqual([]);
    await engine.dispose();
  });
});
