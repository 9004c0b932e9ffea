import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { type ContextEngineFactory, MemoryLogger } from "@clew/core";
import { afterEach, describe, expect, it } from "vitest";
import { memoryPromptRegistry, type PluginApi, registerMemoryPromptSection } from "../src/index.js";
import { codingConversation, orphanToolResults, runContextEngineContractSuite } from "../src/testing.js";
import registerKeepRecent, { createKeepRecentEngine } from "./examples/keep-recent-engine.js";
import registerMemoryHint, { createMemoryHintEngine } from "./examples/memory-hint-engine.js";

const EXAMPLES = join(import.meta.dirname, "examples");
const GUIDE = join(import.meta.dirname, "../../../docs/plugins.md");

runContextEngineContractSuite("docs example: keep-recent (owns compaction)", {
  createEngine: () => createKeepRecentEngine(),
});
runContextEngineContractSuite("docs example: memory-hint (delegates compaction)", {
  createEngine: () => createMemoryHintEngine(),
});

afterEach(() => {
  memoryPromptRegistry.clear();
});

function recordingApi(pluginConfig: unknown = {}) {
  const engines = new Map<string, ContextEngineFactory>();
  const api: PluginApi = {
    id: "example",
    name: "Example",
    rootDir: EXAMPLES,
    paths: { home: "/unused", stateDir: "/unused/state" },
    pluginConfig,
    config: {},
    logger: new MemoryLogger(),
    registerContextEngine: (id, factory) => void engines.set(id, factory),
    registerTool: () => {},
    registerCommand: () => {},
  };
  return { api, engines };
}

describe("the plugin guide's examples", () => {
  it("register their engines under the ids the guide selects", async () => {
    const keepRecent = recordingApi({ keepRecent: 2 });
    registerKeepRecent(keepRecent.api);
    const memoryHint = recordingApi();
    registerMemoryHint(memoryHint.api);
    expect([...keepRecent.engines.keys(), ...memoryHint.engines.keys()]).toEqual([
      "keep-recent",
      "memory-hint",
    ]);
    const engine = await keepRecent.engines.get("keep-recent")?.({});
    expect(engine?.info).toMatchObject({ id: "keep-recent", ownsCompaction: true });
  });

  it("keep-recent really compacts: the next assembly is a summary plus whole recent tool groups", async () => {
    const engine = createKeepRecentEngine({ keepRecent: 4 });
    const messages = codingConversation(20, { toolOutputChars: 2_000 });
    await engine.ingestBatch?.({ sessionId: "s", messages });
    const before = await engine.assemble({ sessionId: "s", messages });
    const compaction = await engine.compact({ sessionId: "s" });
    expect(compaction).toMatchObject({ ok: true, compacted: true });
    expect(compaction.result?.tokensAfter).toBeLessThan(compaction.result?.tokensBefore ?? 0);
    const after = await engine.assemble({ sessionId: "s", messages });
    expect(after.estimatedTokens).toBeLessThan(before.estimatedTokens);
    expect(after.messages[0]).toMatchObject({ role: "user" });
    expect(JSON.stringify(after.messages[0])).toContain("Summary of the earlier conversation");
    expect(orphanToolResults(after.messages)).toEqual([]);
    expect(await engine.compact({ sessionId: "s" })).toMatchObject({ compacted: false });
  });

  it("memory-hint puts the active memory plugin's section in front of the system prompt", async () => {
    const engine = createMemoryHintEngine();
    const without = await engine.assemble({
      sessionId: "s",
      messages: [],
      availableTools: new Set(["memory_get"]),
    });
    expect(without.systemPromptAddition).toBeUndefined();
    registerMemoryPromptSection(({ availableTools }) => [`Memory tools: ${[...availableTools].join(", ")}`]);
    const withSection = await engine.assemble({
      sessionId: "s",
      messages: [],
      availableTools: new Set(["memory_get"]),
    });
    expect(withSection.systemPromptAddition).toBe("Memory tools: memory_get");
  });

  it("appear verbatim in docs/plugins.md", async () => {
    const guide = await readFile(GUIDE, "utf8");
    for (const file of ["keep-recent-engine.ts", "memory-hint-engine.ts"]) {
      const source = await readFile(join(EXAMPLES, file), "utf8");
      expect(guide, `docs/plugins.md must contain test/examples/${file} unchanged`).toContain(
        `\`\`\`ts\n${source}\`\`\``,
      );
    }
  });
});
