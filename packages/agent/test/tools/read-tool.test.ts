import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createReadTool } from "../../src/tools/read-tool.js";
import { useTempWorkspace } from "./temp-workspace.js";

const workspace = useTempWorkspace("read");

function readTool(maxChars?: number) {
  return createReadTool({ workspaceDir: workspace.dir, homeDir: workspace.dir, maxChars });
}

function numberedLines(count: number): string {
  const lines = Array.from({ length: count }, (_, index) => `line ${index + 1}`);
  return `${lines.join("\n")}\n`;
}

async function readText(params: { path: string; offset?: number; limit?: number }, maxChars?: number) {
  const result = await readTool(maxChars).execute("call-1", params);
  const first = result.content[0];
  if (first?.type !== "text") throw new Error("expected a text block");
  return { text: first.text, details: result.details };
}

describe("read tool", () => {
  it("returns a small file's text unchanged", async () => {
    await writeFile(path.join(workspace.dir, "a.txt"), "hello\nworld\n");
    const { text, details } = await readText({ path: "a.txt" });
    expect(text).toBe("hello\nworld");
    expect(details).toMatchObject({ kind: "text", firstLine: 1, lastLine: 2, totalLines: 2 });
    expect(details.nextOffset).toBeUndefined();
  });

  it("returns limit lines from offset with a note on how to continue", async () => {
    await writeFile(path.join(workspace.dir, "many.txt"), numberedLines(10));
    const { text, details } = await readText({ path: "many.txt", offset: 3, limit: 2 });
    expect(text).toBe("line 3\nline 4\n\n[... 6 more lines; use offset=5 to continue]");
    expect(details.nextOffset).toBe(5);
  });

  it("stops at maxChars on a line boundary and says where to continue", async () => {
    await writeFile(path.join(workspace.dir, "big.txt"), numberedLines(100));
    const { text } = await readText({ path: "big.txt" }, 40);
    const [body, note] = text.split("\n\n");
    expect(body?.length).toBeLessThanOrEqual(40);
    // Five 6-char lines and four newlines make 34 chars; a sixth line would make 41.
    expect(body?.split("\n").at(-1)).toBe("line 5");
    expect(note).toBe("[... 95 more lines; use offset=6 to continue]");
  });

  it("cuts a single line longer than maxChars so the call still makes progress", async () => {
    await writeFile(path.join(workspace.dir, "wide.txt"), `${"x".repeat(500)}\nnext\n`);
    const { text } = await readText({ path: "wide.txt" }, 100);
    expect(text.startsWith(`${"x".repeat(100)}\n\n[line 1 has 500 chars`)).toBe(true);
    expect(text).toContain("[... 1 more lines; use offset=2 to continue]");
  });

  it("rejects an offset past the end of the file", async () => {
    await writeFile(path.join(workspace.dir, "short.txt"), "one\n");
    await expect(readText({ path: "short.txt", offset: 5 })).rejects.toThrow(
      `offset 5 is past the end of ${path.join(workspace.dir, "short.txt")} (1 lines)`,
    );
  });

  it("says a file is empty instead of returning nothing", async () => {
    await writeFile(path.join(workspace.dir, "empty.txt"), "");
    expect((await readText({ path: "empty.txt" })).text).toBe("(empty file)");
  });

  it("returns an image as a base64 image block with its mime type", async () => {
    const bytes = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 1, 2, 3]);
    await writeFile(path.join(workspace.dir, "pic.PNG"), bytes);
    const result = await readTool().execute("call-1", { path: "pic.PNG" });
    expect(result.content[1]).toEqual({
      type: "image",
      data: bytes.toString("base64"),
      mimeType: "image/png",
    });
    expect(result.details.kind).toBe("image");
  });

  it("refuses a binary file that is not an image", async () => {
    await writeFile(path.join(workspace.dir, "blob.bin"), Buffer.from([1, 0, 2, 0]));
    await expect(readText({ path: "blob.bin" })).rejects.toThrow("looks like a binary file");
  });

  it("names the resolved path of a missing file", async () => {
    await expect(readText({ path: "missing/nope.txt" })).rejects.toThrow(
      `File not found: ${path.join(workspace.dir, "missing/nope.txt")}`,
    );
  });

  it("names a directory it was asked to read", async () => {
    await mkdir(path.join(workspace.dir, "sub"));
    await expect(readText({ path: "sub" })).rejects.toThrow(
      `${path.join(workspace.dir, "sub")} is a directory`,
    );
  });

  it("expands ~ against the configured home directory", async () => {
    await writeFile(path.join(workspace.dir, "home.txt"), "at home");
    expect((await readText({ path: "~/home.txt" })).text).toBe("at home");
  });
});
