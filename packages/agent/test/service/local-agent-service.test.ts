import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { TurnEvent } from "../../src/runner/events.js";
import { createServiceHarness } from "./service-harness.js";

let harness: Awaited<ReturnType<typeof createServiceHarness>> | undefined;
afterEach(async () => {
  await harness?.cleanup();
  harness = undefined;
});

describe("LocalAgentService", () => {
  it("chats, runs a tool, streams events and records usage", async () => {
    harness = await createServiceHarness({
      replies: [
        { toolCalls: [{ name: "write", arguments: { path: "notes.txt", content: "port 8443" } }] },
        { text: "I wrote notes.txt.", usage: { input: 120, output: 8, cacheRead: 40 } },
      ],
    });
    const { service, home } = harness;
    const session = await service.createSession({ sessionKey: "agent:main:main" });
    const events: TurnEvent[] = [];
    const result = await service.sendMessage(session.sessionKey, "save the port", {
      onEvent: (event) => events.push(event),
    });
    expect(result).toMatchObject({ kind: "reply", ok: true, text: "I wrote notes.txt." });
    expect(await readFile(join(home, "agents/main/workspace/notes.txt"), "utf8")).toBe("port 8443");
    expect(events.filter((event) => event.type !== "text-delta").map((event) => event.type)).toEqual([
      "run-start",
      "message-end",
      "tool-start",
      "tool-end",
      "message-end",
      "run-end",
    ]);
    const streamed = events.flatMap((event) => (event.type === "text-delta" ? [event.delta] : [])).join("");
    expect(streamed).toBe("I wrote notes.txt.");
    const detail = await service.getSession("agent:main:main");
    expect(detail.messages.map((message) => (message as { role: string }).role)).toEqual([
      "user",
      "assistant",
      "toolResult",
      "assistant",
    ]);
    // The second model call saw the tool result and the tool schemas.
    const second = harness.fake.requests[1]?.body as {
      messages: Array<{ role: string; content?: unknown }>;
      tools: Array<{ function: { name: string } }>;
    };
    expect(second.messages.map((message) => message.role)).toContain("tool");
    expect(second.tools.map((tool) => tool.function.name).sort()).toEqual(
      ["edit", "exec", "memory_get", "memory_search", "read", "spawn_subagent", "write"].sort(),
    );
    // memory-core's prompt lines close the system prompt.
    expect(JSON.stringify(second.messages[0]?.content)).toContain("## Memory");
  });

  it("stops a turn at agents.defaults.maxStepsPerTurn and says so; the next message goes on", async () => {
    const reading = { toolCalls: [{ name: "read", arguments: { path: "missing.txt" } }] };
    harness = await createServiceHarness({
      replies: [reading, reading, reading, { text: "Done: the file is missing." }],
      config: { agents: { defaults: { maxStepsPerTurn: 3 } } },
    });
    const { service } = harness;
    const session = await service.createSession({ sessionKey: "agent:main:main" });
    const events: TurnEvent[] = [];
    const stopped = await service.sendMessage(session.sessionKey, "read it until it exists", {
      onEvent: (event) => events.push(event),
    });
    expect(stopped).toMatchObject({ kind: "reply", ok: true });
    expect(stopped.text).toContain(
      "Stopped after 3 model calls in this turn (agents.defaults.maxStepsPerTurn)",
    );
    expect(events.at(-1)).toMatchObject({ type: "run-end", text: stopped.text });
    expect(harness.fake.requests).toHaveLength(3);
    const resumed = await service.sendMessage(session.sessionKey, "continue");
    expect(resumed).toMatchObject({ ok: true, text: "Done: the file is missing." });
    const detail = await service.getSession("agent:main:main");
    expect(detail.messages.map((message) => (message as { role: string }).role).slice(-4)).toEqual([
      "assistant",
      "toolResult",
      "user",
      "assistant",
    ]);
  });

  it("answers commands without calling the model and persists directive-only settings", async () => {
    harness = await createServiceHarness({
      replies: [{ text: "hello", usage: { input: 1_000, output: 20 } }],
    });
    const { service } = harness;
    await service.createSession({ sessionKey: "agent:main:main" });
    const usage = await service.sendMessage("agent:main:main", "/usage tokens");
    expect(usage).toMatchObject({ kind: "command", ok: true, text: "⚙️ Usage footer: tokens." });
    const think = await service.sendMessage("agent:main:main", "/think high");
    expect(think.text).toContain("Thinking level: high");
    expect(harness.fake.requests).toHaveLength(0);
    const reply = await service.sendMessage("agent:main:main", "hi");
    expect(reply.text).toBe("hello\n\nUsage: 1.0k in / 20 out");
    const status = await service.sendMessage("agent:main:main", "/status");
    expect(status.text).toContain("🧠 Model: fake/fake-model");
    expect(status.text).toContain("Think: high");
    expect(status.text).toContain("Engine: legacy");
    const context = await service.sendMessage("agent:main:main", "/context list");
    expect(context.text).toContain("🧠 Context breakdown\n");
    expect(context.text).toContain("System prompt (run):");
  });

  it("compacts on a provider overflow and on /compact, keeping every message in the transcript", async () => {
    const long = "word ".repeat(2_000);
    harness = await createServiceHarness({
      replies: [
        ...Array.from({ length: 5 }, (_, index) => ({ text: `answer ${index} ${long}` })),
        { overflow: true },
        ...Array.from({ length: 4 }, (_, index) => ({ text: `later ${index} ${long}` })),
      ],
      config: { agents: { defaults: { compaction: { keepRecentTokens: 2_000 } } } },
    });
    const { service } = harness;
    await service.createSession({ sessionKey: "agent:main:main" });
    for (let turn = 0; turn < 5; turn++) {
      expect((await service.sendMessage("agent:main:main", `question ${turn} ${long}`)).ok).toBe(true);
    }
    const events: TurnEvent[] = [];
    const overflowTurn = await service.sendMessage("agent:main:main", "one more", {
      onEvent: (event) => events.push(event),
    });
    expect(overflowTurn).toMatchObject({ ok: true, text: expect.stringContaining("later 0") });
    expect(events).toContainEqual(expect.objectContaining({ type: "compaction-start", trigger: "overflow" }));
    expect(events).toContainEqual(
      expect.objectContaining({ type: "compaction-end", trigger: "overflow", compacted: true }),
    );
    for (let turn = 0; turn < 3; turn++)
      await service.sendMessage("agent:main:main", `follow-up ${turn} ${long}`);
    const compacted = await service.sendMessage("agent:main:main", "/compact keep the questions");
    expect(compacted.text).toMatch(/^⚙️ Compacted \(/);
    const detail = await service.getSession("agent:main:main");
    expect(detail.messages.filter((message) => (message as { role: string }).role === "user")).toHaveLength(
      9,
    );
    expect(detail.compactionCount).toBe(2);
    expect(harness.summaries.length).toBeGreaterThanOrEqual(2);
  });

  it("says which setting to change when no model is configured", async () => {
    harness = await createServiceHarness({ replies: [{ text: "unused" }] });
    const service = new (
      harness.service
        .constructor as typeof import("../../src/service/local-agent-service.js").LocalAgentService
    )({
      ...harness.service.options,
      config: {},
    });
    await service.createSession({ sessionKey: "agent:main:other" });
    const result = await service.sendMessage("agent:main:other", "hi");
    expect(result.ok).toBe(false);
    expect(result.text).toContain("agents.defaults.model");
    await service.close();
  });

  it("rejects an unknown session with UnknownSessionError", async () => {
    harness = await createServiceHarness({ replies: [{ text: "x" }] });
    await expect(harness.service.sendMessage("agent:main:nope", "hi")).rejects.toThrow(
      'Unknown session "agent:main:nope"',
    );
  });

  it("archives the transcript on /reset and starts a new session for the key", async () => {
    harness = await createServiceHarness({ replies: [{ text: "one" }] });
    const { service } = harness;
    const before = await service.createSession({ sessionKey: "agent:main:main" });
    await service.sendMessage("agent:main:main", "hi");
    const reset = await service.sendMessage("agent:main:main", "/reset");
    expect(reset.text).toContain("Session reset");
    const after = await service.getSession("agent:main:main");
    expect(after.sessionId).not.toBe(before.sessionId);
    expect(after.messages).toEqual([]);
    const archived = (await readdir(join(harness.home, "agents/main/sessions"))).filter((name) =>
      name.includes("reset"),
    );
    expect(archived).toHaveLength(1);
  });
});
