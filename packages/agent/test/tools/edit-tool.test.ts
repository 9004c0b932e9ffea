import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createEditTool } from "../../src/tools/edit-tool.js";
import { useTempWorkspace } from "./temp-workspace.js";

const workspace = useTempWorkspace("edit");

async function fileWith(content: string): Promise<string> {
  const target = path.join(workspace.dir, "file.ts");
  await writeFile(target, content);
  return target;
}

function edit(params: { path: string; oldText: string; newText: string }) {
  return createEditTool({ workspaceDir: workspace.dir }).execute("call-1", params);
}

describe("edit tool", () => {
  it("replaces the single occurrence and summarises the changed lines", async () => {
    const target = await fileWith("const a = 1;\nconst b = 2;\nconst c = 3;\n");
    const result = await edit({ path: "file.ts", oldText: "b = 2", newText: "b = 20;\n// b changed" });
    expect(await readFile(target, "utf8")).toBe("const a = 1;\nconst b = 20;\n// b changed;\nconst c = 3;\n");
    expect(result.content).toEqual([
      {
        type: "text",
        text: `Edited ${target}\n@@ -2,1 +2,2 @@\n-const b = 2;\n+const b = 20;\n+// b changed;`,
      },
    ]);
    expect(result.details).toEqual({ path: target, line: 2, linesRemoved: 1, linesAdded: 2 });
  });

  it("shows a deleted line as a removal only", async () => {
    const target = await fileWith("keep\ndrop me\nkeep too\n");
    const result = await edit({ path: target, oldText: "drop me\n", newText: "" });
    expect(await readFile(target, "utf8")).toBe("keep\nkeep too\n");
    expect(result.content[0]).toMatchObject({ text: `Edited ${target}\n@@ -2,1 +2,0 @@\n-drop me` });
  });

  it("inserts replacement text literally, without $ patterns", async () => {
    const target = await fileWith("price = X\n");
    await edit({ path: target, oldText: "X", newText: "$& and $1" });
    expect(await readFile(target, "utf8")).toBe("price = $& and $1\n");
  });

  it("refuses text that is not in the file and leaves it unchanged", async () => {
    const target = await fileWith("alpha\n");
    await expect(edit({ path: target, oldText: "beta", newText: "gamma" })).rejects.toThrow(
      `oldText not found in ${target}`,
    );
    expect(await readFile(target, "utf8")).toBe("alpha\n");
  });

  it("refuses ambiguous text and says how many times it occurs", async () => {
    const target = await fileWith("x = 1;\nx = 1;\nx = 1;\n");
    await expect(edit({ path: target, oldText: "x = 1;", newText: "x = 2;" })).rejects.toThrow(
      `oldText occurs 3 times in ${target}; include more context to make it unique`,
    );
    expect(await readFile(target, "utf8")).toBe("x = 1;\nx = 1;\nx = 1;\n");
  });

  it("matches LF oldText in a CRLF file and keeps CRLF endings", async () => {
    const target = await fileWith("one\r\ntwo\r\nthree\r\n");
    await edit({ path: target, oldText: "one\ntwo", newText: "uno\ndos" });
    expect(await readFile(target, "utf8")).toBe("uno\r\ndos\r\nthree\r\n");
  });

  it("names the resolved path of a missing file", async () => {
    await expect(edit({ path: "absent.ts", oldText: "a", newText: "b" })).rejects.toThrow(
      `File not found: ${path.join(workspace.dir, "absent.ts")}`,
    );
  });

  it("rejects an empty oldText", async () => {
    await fileWith("anything\n");
    await expect(edit({ path: "file.ts", oldText: "", newText: "b" })).rejects.toThrow(
      "oldText must not be empty",
    );
  });
});
