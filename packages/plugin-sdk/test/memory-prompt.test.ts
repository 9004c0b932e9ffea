import { afterEach, describe, expect, it } from "vitest";
import {
  buildMemoryPromptLines,
  buildMemorySystemPromptAddition,
  MemoryPromptRegistry,
  type MemoryPromptSectionParams,
  memoryPromptRegistry,
  prepareMemorySystemPromptAddition,
  registerMemoryPromptSection,
  runWithMemoryPromptContext,
  unregisterMemoryPromptSection,
} from "../src/index.js";

afterEach(() => {
  memoryPromptRegistry.clear();
});

const tools = new Set(["memory_search", "memory_get"]);

function toolLines({ availableTools, citationsMode }: MemoryPromptSectionParams): string[] {
  const lines = ["", "## Memory", ...[...availableTools].map((name) => `- use ${name}   `)];
  if (citationsMode === "on") lines.push("Cite your notes.");
  return [...lines, "", ""];
}

describe("buildMemorySystemPromptAddition", () => {
  it("is undefined without a registered section", () => {
    // The registry is per process and test files share a worker: another file's agent may have
    // registered memory-core's section.
    unregisterMemoryPromptSection("plugin:memory-core");
    expect(buildMemorySystemPromptAddition({ availableTools: tools })).toBeUndefined();
    expect(buildMemoryPromptLines({ availableTools: tools })).toEqual([]);
  });

  it("joins the active section's lines, trimmed, from the tools and citations mode it is given", () => {
    registerMemoryPromptSection(toolLines, { owner: "plugin:memory-core" });
    expect(buildMemoryPromptLines({ availableTools: tools })).toEqual([
      "## Memory",
      "- use memory_search",
      "- use memory_get",
    ]);
    expect(
      buildMemorySystemPromptAddition({ availableTools: new Set(["memory_get"]), citationsMode: "on" }),
    ).toBe("## Memory\n- use memory_get\nCite your notes.");
  });

  it("is undefined when the section is empty for these tools", () => {
    registerMemoryPromptSection(({ availableTools }) => (availableTools.has("memory_search") ? ["x"] : []));
    expect(buildMemorySystemPromptAddition({ availableTools: new Set() })).toBeUndefined();
  });

  it("contributes nothing when the builder throws, or is async in the sync variant", async () => {
    registerMemoryPromptSection(() => {
      throw new Error("broken builder");
    });
    expect(buildMemorySystemPromptAddition({ availableTools: tools })).toBeUndefined();
    registerMemoryPromptSection(async () => ["from an async builder"]);
    expect(buildMemorySystemPromptAddition({ availableTools: tools })).toBeUndefined();
    expect(await prepareMemorySystemPromptAddition({ availableTools: tools })).toBe("from an async builder");
    registerMemoryPromptSection(async () => {
      throw new Error("rejects");
    });
    expect(buildMemorySystemPromptAddition({ availableTools: tools })).toBeUndefined();
    expect(await prepareMemorySystemPromptAddition({ availableTools: tools })).toBeUndefined();
  });

  it("fills parameters the caller left out from the run's context; explicit ones win", () => {
    const seen: MemoryPromptSectionParams[] = [];
    registerMemoryPromptSection((params) => {
      seen.push(params);
      return ["ok"];
    });
    runWithMemoryPromptContext({ agentId: "main", citationsMode: "off", sandboxed: true }, () => {
      buildMemorySystemPromptAddition({ availableTools: tools, citationsMode: "on" });
    });
    buildMemorySystemPromptAddition({ availableTools: tools });
    expect(seen[0]).toEqual({ availableTools: tools, agentId: "main", citationsMode: "on", sandboxed: true });
    expect(seen[1]).toEqual({ availableTools: tools });
  });
});

describe("MemoryPromptRegistry", () => {
  it("lets only the owner that registered the active section remove it", () => {
    const registry = new MemoryPromptRegistry();
    registry.register(() => ["old"], { owner: "plugin:old-memory" });
    registry.register(() => ["new"], { owner: "plugin:new-memory" });
    expect(registry.unregister("plugin:old-memory")).toBe(false);
    expect(registry.buildLines({ availableTools: tools })).toEqual(["new"]);
    expect(registry.owner()).toBe("plugin:new-memory");
    expect(registry.unregister("plugin:new-memory")).toBe(true);
    expect(registry.buildLines({ availableTools: tools })).toEqual([]);
  });

  it("backs the process-wide functions", () => {
    registerMemoryPromptSection(() => ["process"], { owner: "plugin:memory-core" });
    expect(memoryPromptRegistry.owner()).toBe("plugin:memory-core");
    expect(unregisterMemoryPromptSection("plugin:memory-core")).toBe(true);
    expect(buildMemorySystemPromptAddition({ availableTools: tools })).toBeUndefined();
  });
});
