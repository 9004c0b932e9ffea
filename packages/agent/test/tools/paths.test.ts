import { describe, expect, it } from "vitest";
import { fileAccessError, resolveToolPath } from "../../src/tools/paths.js";

const options = { workspaceDir: "/work/space", homeDir: "/home/tester" };

describe("resolveToolPath", () => {
  it("resolves relative paths against the workspace", () => {
    expect(resolveToolPath("src/a.ts", options)).toBe("/work/space/src/a.ts");
    expect(resolveToolPath("../other/b.ts", options)).toBe("/work/other/b.ts");
  });

  it("returns absolute paths as written", () => {
    expect(resolveToolPath("/etc/hosts", options)).toBe("/etc/hosts");
  });

  it("expands ~ and ~/ to the home directory", () => {
    expect(resolveToolPath("~", options)).toBe("/home/tester");
    expect(resolveToolPath("~/notes.md", options)).toBe("/home/tester/notes.md");
  });

  it("keeps a ~ that does not start the path", () => {
    expect(resolveToolPath("a/~b", options)).toBe("/work/space/a/~b");
  });

  it("rejects an empty path", () => {
    expect(() => resolveToolPath("  ", options)).toThrow("path must not be empty");
  });
});

describe("fileAccessError", () => {
  it("names the missing file", () => {
    const error = fileAccessError(Object.assign(new Error("x"), { code: "ENOENT" }), "/a/b");
    expect(error.message).toBe("File not found: /a/b");
  });

  it("names a directory", () => {
    const error = fileAccessError(Object.assign(new Error("x"), { code: "EISDIR" }), "/a");
    expect(error.message).toBe("/a is a directory, not a file");
  });
});
