import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createServiceHarness } from "./service-harness.js";

let harness: Awaited<ReturnType<typeof createServiceHarness>> | undefined;
afterEach(async () => {
  await harness?.cleanup();
  harness = undefined;
});

describe("memory-core in the agent", () => {
  it("runs a silent memory flush once when the context nears compaction, then the user's turn", async () => {
    harness = await createServiceHarness({
      contextWindow: 100_000,
      replies: [
        // The first turn reports a prompt of 90k tokens: the next message is past the flush line.
        { text: "noted", usage: { input: 90_000, output: 10 } },
        // The flush turn: the agent writes a note, then answers the silent token.
        {
          toolCalls: [
            {
              name: "write",
              arguments: { path: "memory/notes.md", content: "- deploy key rotates on Fridays" },
            },
          ],
        },
        { text: "NO_REPLY" },
        // The user's turn.
        { text: "Here is the answer.", usage: { input: 95_000, output: 10 } },
        { text: "Second answer." },
      ],
    });
    const { service, fake, home } = harness;
    await service.createSession({ sessionKey: "agent:main:main" });
    await service.sendMessage("agent:main:main", "remember the deploy schedule");
    const reply = await service.sendMessage("agent:main:main", "what next?");
    expect(reply).toMatchObject({ ok: true, text: "Here is the answer." });
    const flushRequest = JSON.stringify(fake.requests[1]?.body);
    expect(flushRequest).toContain("Pre-compaction memory flush");
    // The rules travel in the flush's message: the system prompt, and so the prefix the provider
    // cached for the turn before, stay the same.
    const systemOf = (index: number) =>
      (fake.requests[index]?.body as { messages?: Array<{ role: string; content: unknown }> } | undefined)
        ?.messages?.[0];
    expect(systemOf(1)).toMatchObject({ role: "system" });
    expect(systemOf(1)).toEqual(systemOf(0));
    expect(JSON.stringify(systemOf(1))).not.toContain("memory flush");
    const notes = await readFile(join(home, "agents/main/workspace/memory/notes.md"), "utf8");
    expect(notes).toContain("deploy key rotates on Fridays");
    // Same compaction cycle: no second flush.
    expect((await service.sendMessage("agent:main:main", "and then?")).text).toBe("Second answer.");
    expect(fake.requests).toHaveLength(5);
    expect(await readdir(join(home, "agents/main/workspace/memory"))).toEqual(["notes.md"]);
  });

  it("holds the flush turn to agents.defaults.maxStepsPerTurn too", async () => {
    harness = await createServiceHarness({
      contextWindow: 100_000,
      config: { agents: { defaults: { maxStepsPerTurn: 1 } } },
      replies: [
        { text: "noted", usage: { input: 90_000, output: 10 } },
        // The flush's one model call asks for a tool; the limit ends the flush there.
        { toolCalls: [{ name: "write", arguments: { path: "memory/notes.md", content: "- a note" } }] },
        { text: "Here is the answer." },
      ],
    });
    const { service, fake } = harness;
    await service.createSession({ sessionKey: "agent:main:main" });
    await service.sendMessage("agent:main:main", "remember the deploy schedule");
    const reply = await service.sendMessage("agent:main:main", "what next?");
    expect(reply).toMatchObject({ ok: true, text: "Here is the answer." });
    expect(fake.requests).toHaveLength(3);
    expect(JSON.stringify(fake.requests[1]?.body)).toContain("Pre-compaction memory flush");
    expect(JSON.stringify(fake.requests[2]?.body)).toContain("what next?");
  });

  it("flushes on a 16k window too, once the context passes 16,000 − 8,000 − 4,000 tokens", async () => {
    harness = await createServiceHarness({
      contextWindow: 16_000,
      replies: [
        // A 16k window affords a reserve of 8,000: the flush line is at 4,000 tokens. The default
        // reserve of 20,000 put it below zero, and such a window never flushed.
        { text: "noted", usage: { input: 5_000, output: 10 } },
        { text: "NO_REPLY" },
        { text: "Here is the answer." },
      ],
    });
    const { service, fake } = harness;
    await service.createSession({ sessionKey: "agent:main:main" });
    await service.sendMessage("agent:main:main", "remember the deploy schedule");
    expect(await service.sendMessage("agent:main:main", "what next?")).toMatchObject({
      text: "Here is the answer.",
    });
    expect(JSON.stringify(fake.requests[1]?.body)).toContain("Pre-compaction memory flush");
  });
});
