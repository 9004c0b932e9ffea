import { mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createWorkspaceFileReader, loadWorkspaceFiles, type WorkspaceFile } from "../../src/index.js";
import { makeTempDir, writeTree } from "./prompt-fixtures.js";

let workspace: { path: string; dispose: () => Promise<void> };
beforeEach(async () => {
  workspace = await makeTempDir("clew-workspace-");
});
afterEach(async () => {
  await workspace.dispose();
});

const summary = (files: WorkspaceFile[]) =>
  files.map((file) => `${file.name}:${file.missing ? "missing" : "present"}`);

describe("loadWorkspaceFiles", () => {
  it("lists the six standard files in load order, absent ones as missing with their expected path", async () => {
    await writeTree(workspace.path, { "AGENTS.md": "rules", "USER.md": "user notes" });
    const files = await loadWorkspaceFiles({ workspaceDir: workspace.path, firstRun: false });
    expect(summary(files)).toEqual([
      "AGENTS.md:present",
      "SOUL.md:missing",
      "TOOLS.md:missing",
      "IDENTITY.md:missing",
      "USER.md:present",
      "HEARTBEAT.md:missing",
    ]);
    expect(files[0]).toEqual({
      name: "AGENTS.md",
      path: join(workspace.path, "AGENTS.md"),
      missing: false,
      content: "rules",
    });
    expect(files[1]).toEqual({ name: "SOUL.md", path: join(workspace.path, "SOUL.md"), missing: true });
  });

  it("adds BOOTSTRAP.md on the first run only", async () => {
    await writeTree(workspace.path, { "BOOTSTRAP.md": "hello, new agent" });
    const first = await loadWorkspaceFiles({ workspaceDir: workspace.path, firstRun: true });
    const later = await loadWorkspaceFiles({ workspaceDir: workspace.path, firstRun: false });
    expect(first.at(-1)).toMatchObject({ name: "BOOTSTRAP.md", missing: false, content: "hello, new agent" });
    expect(later.map((file) => file.name)).not.toContain("BOOTSTRAP.md");
  });

  it("leaves an absent BOOTSTRAP.md out instead of listing it as missing", async () => {
    const files = await loadWorkspaceFiles({ workspaceDir: workspace.path, firstRun: true });
    expect(files.map((file) => file.name)).not.toContain("BOOTSTRAP.md");
  });

  it("adds MEMORY.md last when present and leaves it out, not missing, when absent", async () => {
    const without = await loadWorkspaceFiles({ workspaceDir: workspace.path, firstRun: true });
    expect(without.map((file) => file.name)).not.toContain("MEMORY.md");
    await writeTree(workspace.path, { "MEMORY.md": "- likes tea" });
    const withMemory = await loadWorkspaceFiles({ workspaceDir: workspace.path, firstRun: true });
    expect(withMemory.map((file) => file.name).at(-1)).toBe("MEMORY.md");
    expect(withMemory.at(-1)).toMatchObject({ missing: false, content: "- likes tea" });
  });

  it("uses an injected reader and turns its rejection into a missing file with the reason", async () => {
    const read: string[] = [];
    const files = await loadWorkspaceFiles({
      workspaceDir: "/virtual",
      firstRun: false,
      readFile: async (path) => {
        read.push(path);
        if (path.endsWith("SOUL.md")) throw new Error("permission denied");
        return path.endsWith("AGENTS.md") ? "virtual rules" : undefined;
      },
    });
    expect(read).toContain(join("/virtual", "MEMORY.md"));
    expect(files[0]).toMatchObject({ name: "AGENTS.md", missing: false, content: "virtual rules" });
    expect(files[1]).toMatchObject({ name: "SOUL.md", missing: true, problem: "permission denied" });
  });
});

describe("createWorkspaceFileReader", () => {
  it("refuses a link that leads outside the workspace", async () => {
    const outside = await makeTempDir("clew-outside-");
    try {
      await writeFile(join(outside.path, "secret.txt"), "host secret");
      await symlink(join(outside.path, "secret.txt"), join(workspace.path, "AGENTS.md"));
      const files = await loadWorkspaceFiles({ workspaceDir: workspace.path, firstRun: false });
      expect(files[0]).toMatchObject({ name: "AGENTS.md", missing: true });
      expect((files[0] as { problem?: string }).problem).toContain("outside the workspace");
    } finally {
      await outside.dispose();
    }
  });

  it("follows a link that stays inside the workspace", async () => {
    await writeTree(workspace.path, { "docs/agents.md": "linked rules" });
    await symlink(join(workspace.path, "docs/agents.md"), join(workspace.path, "AGENTS.md"));
    const files = await loadWorkspaceFiles({ workspaceDir: workspace.path, firstRun: false });
    expect(files[0]).toMatchObject({ missing: false, content: "linked rules" });
  });

  it("treats a dangling link as absent and a folder as a problem", async () => {
    await symlink(join(workspace.path, "nowhere.md"), join(workspace.path, "SOUL.md"));
    await mkdir(join(workspace.path, "TOOLS.md"));
    const files = await loadWorkspaceFiles({ workspaceDir: workspace.path, firstRun: false });
    expect(files[1]).toEqual({ name: "SOUL.md", path: join(workspace.path, "SOUL.md"), missing: true });
    expect((files[2] as { problem?: string }).problem).toContain("not a regular file");
  });

  it("refuses a file over the byte limit", async () => {
    await writeTree(workspace.path, { "AGENTS.md": "x".repeat(100) });
    const reader = createWorkspaceFileReader(workspace.path, { maxBytes: 50 });
    await expect(reader(join(workspace.path, "AGENTS.md"))).rejects.toThrow(
      /100 bytes, over the 50-byte limit/,
    );
  });
});
