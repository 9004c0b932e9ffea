import { Type } from "typebox";
import { describe, expect, it } from "vitest";
import { executeToolCall } from "../../src/tools/execute-tool-call.js";
import type { AnyAgentTool } from "../../src/tools/tool.js";

const now = () => 1_700_000_000_000;

/** A tool whose behaviour each test supplies; records the params it ran with. */
function fakeTool(execute: AnyAgentTool["execute"]): AnyAgentTool & { calls: unknown[] } {
  const calls: unknown[] = [];
  return {
    name: "greet",
    label: "Greet",
    description: "Greets someone.",
    parameters: Type.Object({ name: Type.String(), times: Type.Optional(Type.Integer({ minimum: 1 })) }),
    calls,
    async execute(toolCallId, params, signal, onUpdate) {
      calls.push(params);
      return execute(toolCallId, params, signal, onUpdate);
    },
  };
}

const greeting = async () => ({
  content: [{ type: "text" as const, text: "hi" }],
  details: { greeted: true },
});

function textOf(result: { content: Array<{ type: string; text?: string }> }): string {
  return result.content.map((block) => block.text ?? "").join("");
}

describe("executeToolCall", () => {
  it("answers the tool's content and details with the injected timestamp", async () => {
    const tool = fakeTool(greeting);
    const result = await executeToolCall(
      tool,
      { id: "c1", name: "greet", arguments: { name: "Ada" } },
      undefined,
      {
        now,
      },
    );
    expect(result).toEqual({
      role: "toolResult",
      toolCallId: "c1",
      toolName: "greet",
      content: [{ type: "text", text: "hi" }],
      details: { greeted: true },
      isError: false,
      timestamp: now(),
    });
  });

  it("names a missing required field and does not run the tool", async () => {
    const tool = fakeTool(greeting);
    const result = await executeToolCall(tool, { id: "c1", name: "greet", arguments: {} }, undefined, {
      now,
    });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/Validation failed for tool "greet":\n {2}- name: /);
    expect(tool.calls).toEqual([]);
  });

  it("names a field of the wrong type", async () => {
    const tool = fakeTool(greeting);
    const result = await executeToolCall(
      tool,
      { id: "c1", name: "greet", arguments: { name: "Ada", times: 0 } },
      undefined,
      { now },
    );
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("- times: ");
  });

  it("keeps a validation error short when the rejected arguments are large", async () => {
    const tool = fakeTool(greeting);
    const result = await executeToolCall(
      tool,
      { id: "c1", name: "greet", arguments: { times: 1, padding: "x".repeat(50_000) } },
      undefined,
    );
    expect(textOf(result)).toContain("- name: ");
    expect(textOf(result).length).toBeLessThan(2100);
  });

  it("coerces a numeric string the schema asks to be an integer", async () => {
    const tool = fakeTool(greeting);
    await executeToolCall(
      tool,
      { id: "c1", name: "greet", arguments: { name: "Ada", times: "2" } },
      undefined,
    );
    expect(tool.calls).toEqual([{ name: "Ada", times: 2 }]);
  });

  it("lists the available tools when the tool is unknown", async () => {
    const result = await executeToolCall(undefined, { id: "c1", name: "fly", arguments: {} }, undefined, {
      now,
      availableTools: ["read", "exec"],
    });
    expect(result).toMatchObject({ isError: true, toolName: "fly", toolCallId: "c1", timestamp: now() });
    expect(textOf(result)).toBe("Tool fly is not available. Available tools: read, exec");
  });

  it("answers a throwing tool's message as an error result", async () => {
    const tool = fakeTool(async () => {
      throw new Error("disk on fire");
    });
    const result = await executeToolCall(
      tool,
      { id: "c1", name: "greet", arguments: { name: "Ada" } },
      undefined,
    );
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe("disk on fire");
  });

  it("answers an error when the tool returns something that is not a tool result", async () => {
    const tool = fakeTool(async () => "just a string" as never);
    const result = await executeToolCall(
      tool,
      { id: "c1", name: "greet", arguments: { name: "Ada" } },
      undefined,
    );
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("returned an invalid result");
  });

  it("answers 'Tool call aborted' promptly even when the tool ignores the signal", async () => {
    const tool = fakeTool(() => new Promise(() => {}));
    const controller = new AbortController();
    const pending = executeToolCall(
      tool,
      { id: "c1", name: "greet", arguments: { name: "Ada" } },
      controller.signal,
    );
    setTimeout(() => controller.abort(), 10);
    const result = await pending;
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe("Tool call aborted");
  });

  it("does not run the tool when the signal has already fired", async () => {
    const tool = fakeTool(greeting);
    const controller = new AbortController();
    controller.abort();
    const result = await executeToolCall(
      tool,
      { id: "c1", name: "greet", arguments: { name: "Ada" } },
      controller.signal,
    );
    expect(textOf(result)).toBe("Tool call aborted");
    expect(tool.calls).toEqual([]);
  });

  it("reports an abort rather than the tool's rejection once the signal fired", async () => {
    const controller = new AbortController();
    const tool = fakeTool(async () => {
      controller.abort();
      throw new Error("interrupted by abort");
    });
    const result = await executeToolCall(
      tool,
      { id: "c1", name: "greet", arguments: { name: "Ada" } },
      controller.signal,
    );
    expect(textOf(result)).toBe("Tool call aborted");
  });
});
