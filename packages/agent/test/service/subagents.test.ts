import { readdir } from "node:fs/promises";
import { join } from "node:path";
import {
  type ContextEngine,
  createContextEngineRegistry,
  delegateCompactionToRuntime,
  type SubagentEndedParams,
  type SubagentSpawnParams,
} from "@clew/core";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createServiceHarness } from "./service-harness.js";

let harness: Awaited<ReturnType<typeof createServiceHarness>> | undefined;
afterEach(async () => {
  await harness?.cleanup();
  harness = undefined;
});

function trackingEngine() {
  const prepared: SubagentSpawnParams[] = [];
  const ended: SubagentEndedParams[] = [];
  const rolledBack: string[] = [];
  const deleted: string[] = [];
  const engine: ContextEngine = {
    info: { id: "tracking", name: "Tracking engine" },
    ingest: async () => ({ ingested: false }),
    assemble: async (params) => ({ messages: params.messages, estimatedTokens: 0 }),
    compact: (params) => delegateCompactionToRuntime(params),
    prepareSubagentSpawn: async (params) => {
      prepared.push(params);
      return { rollback: () => void rolledBack.push(params.childSessionKey) };
    },
    onSubagentEnded: async (params) => {
      ended.push(params);
    },
    onSessionDeleted: async (params) => {
      deleted.push(params.sessionKey ?? params.sessionId);
    },
  };
  const registry = createContextEngineRegistry();
  registry.registerContextEngine("tracking", () => engine, { owner: "test:subagents" });
  return { registry, prepared, ended, rolledBack, deleted };
}

const slot = { plugins: { slots: { contextEngine: "tracking" } } };

describe("spawn_subagent", () => {
  it("runs a forked child, returns its answer to the parent and brackets it with the engine's hooks", async () => {
    const tracking = trackingEngine();
    harness = await createServiceHarness({
      registry: tracking.registry,
      config: slot,
      replies: [
        { toolCalls: [{ name: "spawn_subagent", arguments: { task: "count the files", context: "fork" } }] },
        { text: "There are 3 files." },
        { text: "The subagent found 3 files." },
      ],
    });
    const { service, fake } = harness;
    await service.createSession({ sessionKey: "agent:main:main" });
    const result = await service.sendMessage("agent:main:main", "how many files are there?");
    expect(result).toMatchObject({ ok: true, text: "The subagent found 3 files." });

    expect(tracking.prepared).toHaveLength(1);
    const spawn = tracking.prepared[0];
    expect(spawn).toMatchObject({ parentSessionKey: "agent:main:main", contextMode: "fork" });
    expect(spawn?.childSessionKey).toMatch(/^agent:main:main:sub:/);
    expect(tracking.ended).toEqual([{ childSessionKey: spawn?.childSessionKey, reason: "completed" }]);
    expect(tracking.rolledBack).toEqual([]);

    // The fork saw the parent's conversation; the child had no spawn tool of its own.
    const childRequest = JSON.stringify(fake.requests[1]?.body);
    expect(childRequest).toContain("how many files are there?");
    expect(childRequest).toContain("count the files");
    expect(childRequest).not.toContain('"spawn_subagent"');
    const parent = await service.getSession("agent:main:main");
    const toolResult = parent.messages.find((message) => (message as { role: string }).role === "toolResult");
    expect(JSON.stringify(toolResult)).toContain("There are 3 files.");

    // The child is closed once it answered: no transcript lock held for the service's life.
    const child = await service.getSession(spawn?.childSessionKey as string);
    const sessionsDir = join(harness.home, "agents/main/sessions");
    expect((await readdir(sessionsDir)).filter((name) => name.endsWith(".lock"))).not.toContain(
      `${child.sessionId}.jsonl.lock`,
    );
    expect((await readdir(sessionsDir)).filter((name) => name.endsWith(".lock"))).toContain(
      `${parent.sessionId}.jsonl.lock`,
    );

    // Deleting the parent deletes the child it spawned (a fork holds a copy of its history).
    await service.deleteSession("agent:main:main");
    expect(await service.listSessions()).toEqual([]);
    expect(tracking.deleted).toEqual([spawn?.childSessionKey, "agent:main:main"]);
  });

  it("leaves no child behind when the parent is deleted while its spawn is under way", async () => {
    harness = await createServiceHarness({
      replies: [
        { toolCalls: [{ name: "spawn_subagent", arguments: { task: "count the files", context: "fork" } }] },
        { text: "There are 3 files." },
        { text: "The subagent found 3 files." },
      ],
    });
    const { service } = harness;
    await service.createSession({ sessionKey: "agent:main:main" });
    // The child's session is created only once the parent's deletion has begun.
    const createSession = service.createSession.bind(service);
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let spawning = false;
    service.createSession = async (options = {}) => {
      if (options.sessionKey?.includes(":sub:")) {
        spawning = true;
        await gate;
      }
      return createSession(options);
    };
    // The spawn goes on after the run stopped; the test ends once it deleted its child.
    const deleteSession = service.deleteSession.bind(service);
    let childDeleted: Promise<void> | undefined;
    service.deleteSession = (reference) => {
      const deletion = deleteSession(reference);
      if (reference.includes(":sub:")) childDeleted = deletion;
      return deletion;
    };
    const run = service.sendMessage("agent:main:main", "how many files?");
    await vi.waitFor(() => expect(spawning).toBe(true));
    // A stopped run does not wait for its tools: the deletion completes while the spawn waits.
    await service.deleteSession("agent:main:main");
    release();
    await run;
    await vi.waitFor(() => expect(childDeleted).toBeDefined(), { timeout: 3_000 });
    await childDeleted;
    expect(await service.listSessions()).toEqual([]);
  });

  it("can be asked again when deleting a child failed half-way", async () => {
    harness = await createServiceHarness({
      replies: [
        { toolCalls: [{ name: "spawn_subagent", arguments: { task: "count", context: "fork" } }] },
        { text: "3" },
        { text: "done" },
      ],
    });
    const { service } = harness;
    await service.createSession({ sessionKey: "agent:main:main" });
    await service.sendMessage("agent:main:main", "go");
    const parentId = (await service.getSession("agent:main:main")).sessionId;
    const archive = service.store.archive.bind(service.store);
    let failed = false;
    service.store.archive = async (...args) => {
      // The child's transcript cannot be archived, once.
      if (!failed && args[1] !== parentId) {
        failed = true;
        throw new Error("EACCES: permission denied");
      }
      return archive(...args);
    };
    await expect(service.deleteSession("agent:main:main")).rejects.toThrow("EACCES");
    await service.deleteSession("agent:main:main");
    expect(await service.listSessions()).toEqual([]);
  });

  it("rolls the preparation back when the child fails, and the parent sees an error result", async () => {
    const tracking = trackingEngine();
    harness = await createServiceHarness({
      registry: tracking.registry,
      config: slot,
      replies: [
        { toolCalls: [{ name: "spawn_subagent", arguments: { task: "do it" } }] },
        { status: 400, error: "bad request from the child", headers: { "x-should-retry": "false" } },
        { text: "The subagent failed, sorry." },
      ],
    });
    const { service } = harness;
    await service.createSession({ sessionKey: "agent:main:main" });
    const result = await service.sendMessage("agent:main:main", "delegate");
    expect(result.text).toBe("The subagent failed, sorry.");
    expect(tracking.rolledBack).toHaveLength(1);
    const parent = await service.getSession("agent:main:main");
    const toolResult = parent.messages.find(
      (message) => (message as { role: string }).role === "toolResult",
    ) as {
      isError: boolean;
    };
    expect(toolResult.isError).toBe(true);
  });

  it("skips engine preparation for an isolated light-context spawn", async () => {
    const tracking = trackingEngine();
    harness = await createServiceHarness({
      registry: tracking.registry,
      config: slot,
      replies: [
        { toolCalls: [{ name: "spawn_subagent", arguments: { task: "quick", lightContext: true } }] },
        { text: "quick answer" },
        { text: "done" },
      ],
    });
    await harness.service.createSession({ sessionKey: "agent:main:main" });
    expect((await harness.service.sendMessage("agent:main:main", "go")).ok).toBe(true);
    expect(tracking.prepared).toEqual([]);
    expect(tracking.ended).toHaveLength(1);
  });
});
