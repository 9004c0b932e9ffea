import { readFile } from "node:fs/promises";
import path from "node:path";
import { Type } from "typebox";
import { describe, expect, it } from "vitest";
import { createBuiltinTools, registerBuiltinTools } from "../../src/tools/builtin-tools.js";
import { executeToolCall } from "../../src/tools/execute-tool-call.js";
import { ToolRegistry } from "../../src/tools/tool.js";
import { useTempWorkspace } from "./temp-workspace.js";

const workspace = useTempWorkspace("builtin");

describe("built-in tools", () => {
  it("creates read, write, edit and exec", () => {
    const names = createBuiltinTools({ workspaceDir: workspace.dir }).map((tool) => tool.name);
    expect(names).toEqual(["read", "write", "edit", "exec"]);
  });

  it("keeps the schemas and descriptions sent to the model small", () => {
    const tools = createBuiltinTools({ workspaceDir: workspace.dir });
    const size = JSON.stringify(
      tools.map((tool) => ({ name: tool.name, description: tool.description, parameters: tool.parameters })),
    ).length;
    expect(size).toBeLessThan(2000);
  });

  it("registers the tools under owner core and leaves another owner's name alone", () => {
    const registry = new ToolRegistry();
    const pluginExec = {
      name: "exec",
      label: "Plugin exec",
      description: "x",
      parameters: Type.Object({}),
      execute: async () => ({ content: [], details: {} }),
    };
    registry.register(pluginExec, "plugin:sandbox");
    const outcome = registerBuiltinTools(registry, { workspaceDir: workspace.dir });
    expect(outcome).toEqual({
      registered: ["read", "write", "edit"],
      refused: [{ name: "exec", existingOwner: "plugin:sandbox" }],
    });
    expect(registry.get("exec")).toBe(pluginExec);
    registry.unregisterOwner("core");
    expect([...registry.names()]).toEqual(["exec"]);
  });

  it("passes the environment's limits on to the tools", async () => {
    const tools = createBuiltinTools({ workspaceDir: workspace.dir, readMaxChars: 5, outputCapChars: 4 });
    const registry = new ToolRegistry();
    for (const tool of tools) registry.register(tool, "core");
    const call = (name: string, args: Record<string, unknown>) =>
      executeToolCall(registry.get(name), { id: name, name, arguments: args }, undefined);

    const written = await call("write", { path: "notes/a.txt", content: "0123456789" });
    expect(written.isError).toBe(false);
    expect(await readFile(path.join(workspace.dir, "notes/a.txt"), "utf8")).toBe("0123456789");
    const read = await call("read", { path: "notes/a.txt" });
    expect(read.content[0]).toMatchObject({ text: expect.stringMatching(/^01234\n\n\[line 1 has 10 chars/) });
    const exec = await call("exec", { command: "printf abcdefgh" });
    expect(exec.content[0]).toMatchObject({ text: "ab\n[... 4 chars omitted ...]\ngh" });
  });
});
