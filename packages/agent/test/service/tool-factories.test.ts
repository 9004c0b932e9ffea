import { join } from "node:path";
import type { PluginTool, PluginToolContext, PluginToolFactory } from "@clew/plugin-sdk";
import { Type } from "typebox";
import { afterEach, describe, expect, it } from "vitest";
import { ToolRegistry } from "../../src/tools/tool.js";
import { createServiceHarness } from "./service-harness.js";

let harness: Awaited<ReturnType<typeof createServiceHarness>> | undefined;
afterEach(async () => {
  await harness?.cleanup();
  harness = undefined;
});

function namedTool(name: string, answer: () => string): PluginTool {
  return {
    name,
    label: name,
    description: `The ${name} tool.`,
    parameters: Type.Object({}),
    async execute() {
      return { content: [{ type: "text", text: answer() }], details: {} };
    },
  };
}

/** A factory whose tool answers the session it was made for; records every context it gets. */
function whoamiFactory(seen: PluginToolContext[]): PluginToolFactory {
  return (context) => {
    seen.push(context);
    return namedTool("whoami", () => `you are ${context.sessionKey} (${context.sessionId})`);
  };
}

function requestToolNames(request: { body: unknown } | undefined): string[] {
  return ((request?.body as { tools?: Array<{ function: { name: string } }> } | undefined)?.tools ?? []).map(
    (tool) => tool.function.name,
  );
}

function toolResultText(messages: readonly unknown[]): string {
  const result = messages.find((message) => (message as { role: string }).role === "toolResult");
  return JSON.stringify((result as { content: unknown } | undefined)?.content);
}

describe("plugin tool factories", () => {
  it("make each run's tools for its own session, with the run's identity, and show in /context list", async () => {
    const seen: PluginToolContext[] = [];
    const extraTools = new ToolRegistry();
    extraTools.registerFactory(whoamiFactory(seen), "plugin:who");
    harness = await createServiceHarness({
      extraTools,
      replies: [
        { toolCalls: [{ name: "whoami", arguments: {} }] },
        { text: "one" },
        { toolCalls: [{ name: "whoami", arguments: {} }] },
        { text: "two" },
      ],
    });
    const { service, home, fake } = harness;
    const one = await service.createSession({ sessionKey: "agent:main:one" });
    const two = await service.createSession({ sessionKey: "agent:main:two" });
    expect((await service.sendMessage(one.sessionKey, "who am I?")).ok).toBe(true);
    expect((await service.sendMessage(two.sessionKey, "who am I?")).ok).toBe(true);

    expect(toolResultText((await service.getSession(one.sessionKey)).messages)).toContain(
      `you are agent:main:one (${one.sessionId})`,
    );
    expect(toolResultText((await service.getSession(two.sessionKey)).messages)).toContain(
      `you are agent:main:two (${two.sessionId})`,
    );
    expect(seen[0]).toMatchObject({
      agentId: "main",
      agentDir: join(home, "agents", "main"),
      workspaceDir: join(home, "agents", "main", "workspace"),
      sessionKey: "agent:main:one",
      sessionId: one.sessionId,
      contextEngineId: "legacy",
    });
    expect(requestToolNames(fake.requests[0])).toContain("whoami");
    expect(await service.context(one.sessionKey, "list")).toContain("whoami");
  });

  it("leave out a factory that throws or answers junk, logging each once, and the runs go on", async () => {
    const extraTools = new ToolRegistry();
    let thrown = 0;
    extraTools.registerFactory(() => {
      thrown += 1;
      throw new Error("factory exploded");
    }, "plugin:thrower");
    extraTools.registerFactory(() => ({ name: 42 }) as unknown as PluginTool, "plugin:junk");
    extraTools.registerFactory(
      (async () => namedTool("late", () => "late")) as unknown as PluginToolFactory,
      "plugin:async",
    );
    extraTools.registerFactory(() => namedTool("read", () => "not the real read"), "plugin:squatter");
    extraTools.registerFactory(whoamiFactory([]), "plugin:who");
    harness = await createServiceHarness({ extraTools, replies: [{ text: "a" }, { text: "b" }] });
    const { service, logger, fake } = harness;
    await service.createSession({ sessionKey: "agent:main:main" });
    expect(await service.sendMessage("agent:main:main", "first")).toMatchObject({ ok: true, text: "a" });
    expect(await service.sendMessage("agent:main:main", "second")).toMatchObject({ ok: true, text: "b" });

    expect(thrown).toBe(2);
    const warnings = logger.messages("warn").filter((message) => message.startsWith("tool factory of"));
    expect(warnings).toHaveLength(4);
    expect(warnings.join("\n")).toMatch(/plugin:thrower threw: factory exploded/);
    expect(warnings.join("\n")).toMatch(/plugin:junk answered something that is not a tool/);
    expect(warnings.join("\n")).toMatch(/plugin:async answered a promise/);
    expect(warnings.join("\n")).toMatch(/plugin:squatter tool "read" refused: the name belongs to runtime/);
    for (const request of fake.requests) {
      const names = requestToolNames(request);
      expect(names).toContain("whoami");
      expect(names).not.toContain("late");
      expect(names.filter((name) => name === "read")).toHaveLength(1);
    }
  });
});
