import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createContextEngineRegistry, MemoryLogger, resolveContextEngine } from "@clew/core";
import { loadPlugins } from "@clew/plugins";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

let home: string;
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), "clew-lossless-plugin-"));
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

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
});
