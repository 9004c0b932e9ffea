import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createWriteTool } from "../../src/tools/write-tool.js";
import { useTempWorkspace } from "./temp-workspace.js";

const workspace = useTempWorkspace("write");

function writeTool() {
  return createWriteTool({ workspaceDir: workspace.dir });
}

describe("write tool", () => {
  it("creates missing parent directories and reports the byte count", async () => {
    const result = await writeTool().execute("call-1", { path: "deep/er/file.txt", content: "héllo" });
    const target = path.join(workspace.dir, "deep/er/file.txt");
    expect(await readFile(target, "utf8")).toBe("héllo");
    expect(result.content).toEqual([{ type: "text", text: `Wrote 6 bytes to ${target}` }]);
    expect(result.details).toEqual({ path: target, bytes: 6 });
  });

  it("replaces an existing file's content", async () => {
    const target = path.join(workspace.dir, "existing.txt");
    await writeFile(target, "old content that is longer");
    await writeTool().execute("call-1", { path: target, content: "new" });
    expect(await readFile(target, "utf8")).toBe("new");
  });

  it("names a directory that is in the way", async () => {
    await mkdir(path.join(workspace.dir, "taken"));
    await expect(writeTool().execute("call-1", { path: "taken", content: "x" })).rejects.toThrow(
      `${path.join(workspace.dir, "taken")} is a directory, not a file`,
    );
  });
});
