import { afterEach, describe, expect, it } from "vitest";
import type { TurnEvent } from "../../src/runner/events.js";
import { createServiceHarness } from "./service-harness.js";

let harness: Awaited<ReturnType<typeof createServiceHarness>> | undefined;
afterEach(async () => {
  await harness?.cleanup();
  harness = undefined;
});

type Stored = {
  role: string;
  content?: Array<{ type: string; id?: string }>;
  toolCallId?: string;
  stopReason?: string;
};

/** Every tool call in the stored messages has a result after it. */
function unansweredToolCalls(messages: unknown[]): string[] {
  const calls = new Set<string>();
  for (const message of messages as Stored[]) {
    if (message.role === "assistant")
      for (const block of message.content ?? [])
        if (block.type === "toolCall" && block.id) calls.add(block.id);
    if (message.role === "toolResult" && message.toolCallId) calls.delete(message.toolCallId);
  }
  return [...calls];
}

describe("aborting a run", () => {
  it("during a tool call stops the run and leaves every tool call answered", async () => {
    harness = await createServiceHarness({
      replies: [
        {
          toolCalls: [
            { name: "exec", arguments: { command: "sleep 5" } },
            { name: "read", arguments: { path: "x" } },
          ],
        },
      ],
    });
    const { service } = harness;
    await service.createSession({ sessionKey: "agent:main:main" });
    const controller = new AbortController();
    const events: TurnEvent[] = [];
    const started = Date.now();
    const result = await service.sendMessage("agent:main:main", "run it", {
      signal: controller.signal,
      onEvent: (event) => {
        events.push(event);
        if (event.type === "tool-start")
          setTimeout(() => controller.abort(new Error("user pressed stop")), 100);
      },
    });
    expect(Date.now() - started).toBeLessThan(4_000);
    expect(result).toMatchObject({ ok: false, error: { aborted: true } });
    expect(events.at(-1)).toMatchObject({ type: "run-error", aborted: true });
    const stored = (await service.getSession("agent:main:main")).messages;
    expect(stored.map((message) => (message as Stored).role)).toEqual([
      "user",
      "assistant",
      "toolResult",
      "toolResult",
    ]);
    expect(unansweredToolCalls(stored)).toEqual([]);
    expect(harness.fake.requests).toHaveLength(1);
  });

  it("mid-stream records the partial reply as aborted and the session keeps working", async () => {
    harness = await createServiceHarness({
      replies: [
        { text: "a long answer that streams slowly".repeat(5), chunkDelayMs: 40 },
        { text: "next answer" },
      ],
    });
    const { service } = harness;
    await service.createSession({ sessionKey: "agent:main:main" });
    const controller = new AbortController();
    const result = await service.sendMessage("agent:main:main", "talk", {
      signal: controller.signal,
      onEvent: (event) => {
        if (event.type === "text-delta") controller.abort();
      },
    });
    expect(result.error?.aborted).toBe(true);
    const next = await service.sendMessage("agent:main:main", "again");
    expect(next).toMatchObject({ ok: true, text: "next answer" });
    const stored = (await service.getSession("agent:main:main")).messages as Stored[];
    expect(stored.map((message) => message.role)).toEqual(["user", "assistant", "user", "assistant"]);
    expect(stored[1]?.stopReason).toBe("aborted");
  });
});
