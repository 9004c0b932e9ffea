import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createMemoryGetTool } from "../src/index.js";

let workspace: string;
beforeEach(async () => {
  workspace = await mkdtemp(join(tmpdir(), "clew-memory-get-"));
  await mkdir(join(workspace, "memory"), { recursive: true });
  await writeFile(join(workspace, "memory", "2025-01-02.md"), "one\ntwo\nthree\nfour\nfive\n");
  await writeFile(join(workspace, "MEMORY.md"), "facts\n");
  await writeFile(join(workspace, "secrets.txt"), "not a note");
});
afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
});

const text = (result: { content: Array<{ type: string; text?: string }> }) => result.content[0]?.text;

describe("memory_get", () => {
  it("reads a whole note", async () => {
    const tool = createMemoryGetTool({ workspaceDir: workspace });
    const result = await tool.execute("c1", { path: "MEMORY.md" });
    expect(text(result)).toBe("facts");
    expect(result.details).toEqual({ path: "MEMORY.md", from: 1, to: 1, totalLines: 1 });
  });

  it("reads a line range and says where to continue", async () => {
    const tool = createMemoryGetTool({ workspaceDir: workspace });
    const result = await tool.execute("c2", { path: "memory/2025-01-02.md", from: 2, lines: 2 });
    expect(text(result)).toBe(
      "two\nthree\n\n[... 2 more lines; memory_get memory/2025-01-02.md from 4 to continue]",
    );
    expect(result.details).toEqual({
      path: "memory/2025-01-02.md",
      from: 2,
      to: 3,
      totalLines: 5,
      nextFrom: 4,
    });
    const absolute = await tool.execute("c3", { path: join(workspace, "memory", "2025-01-02.md"), from: 5 });
    expect(text(absolute)).toBe("five");
  });

  it("refuses files that are not notes, paths outside the workspace, and a range past the end", async () => {
    const tool = createMemoryGetTool({ workspaceDir: workspace });
    await expect(tool.execute("c4", { path: "secrets.txt" })).rejects.toThrow(
      'memory_get reads only MEMORY.md and memory/*.md in the workspace, not "secrets.txt"',
    );
    await expect(tool.execute("c5", { path: "memory/../secrets.txt" })).rejects.toThrow("reads only");
    await expect(tool.execute("c6", { path: "../outside/memory/x.md" })).rejects.toThrow("reads only");
    await expect(tool.execute("c7", { path: "memory/2025-01-02.md", from: 9 })).rejects.toThrow(
      "from 9 is past the end of memory/2025-01-02.md (5 lines)",
    );
  });

  it("names the note that does not exist", async () => {
    const tool = createMemoryGetTool({ workspaceDir: workspace });
    await expect(tool.execute("c8", { path: "memory/1999-01-01.md" })).rejects.toThrow(
      "No note at memory/1999-01-01.md; memory_search lists the notes that exist",
    );
  });
});
