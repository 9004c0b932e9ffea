import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  type AgentMessage,
  ContextEngineHost,
  charEstimateTokenCounter,
  countMessagesTokens,
  createContextEngineRegistry,
  createRuntimeCompaction,
  MemoryLogger,
  type ModelStepRequest,
  TranscriptHostSession,
} from "../../src/index.js";
import { JsonlTranscriptStore } from "../../src/transcript/jsonl/jsonl-transcript-store.js";
import { assistantMessage } from "../support.js";
import { importPiSession } from "./pi-session.js";

let home: string;
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), "clew-e2e-"));
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

const model = { id: "claude-test", provider: "anthropic", api: "anthropic-messages", contextWindow: 60_000 };

function textOf(message: AgentMessage): string {
  const content = (message as { content?: unknown }).content;
  if (typeof content === "string") return content;
  return JSON.stringify(content);
}

describe("the legacy engine on a real pi session", () => {
  it("compacts and prunes end to end through the host, keeping every stored message", async () => {
    const store = new JsonlTranscriptStore({ home });
    const sessionId = await importPiSession(store, "before-compaction.jsonl");
    const storedBefore = (await store.openReadOnly("main", sessionId)).entries();
    const messagesBefore = storedBefore.filter((entry) => entry.type === "message").length;
    expect(messagesBefore).toBe(990);

    const logger = new MemoryLogger();
    const host = new ContextEngineHost({
      registry: createContextEngineRegistry(),
      logger,
      config: { agents: { defaults: { contextPruning: { mode: "cache-ttl", ttl: "5m" } } } },
      runtimeCompaction: createRuntimeCompaction({
        counter: charEstimateTokenCounter,
        keepRecentTokens: 20_000,
      }),
    });
    const session = await TranscriptHostSession.openOrCreate(store, { agentId: "main", sessionId });
    const requests: ModelStepRequest[] = [];
    const turn = await host.runTurn({
      session,
      prompt: "Where did we leave the refactoring?",
      systemPrompt: "You are a coding agent.",
      model,
      callModel: async (request) => {
        requests.push(request);
        return { messages: [assistantMessage("We finished WP16.", Date.now())], done: true };
      },
    });

    // The history did not fit the 60k window, so the host compacted before calling the model.
    expect(turn.compactions.map((outcome) => [outcome.trigger, outcome.result.compacted])).toContainEqual([
      "precheck",
      true,
    ]);
    const sent = requests.at(-1);
    if (sent === undefined) throw new Error("the model was never called");
    expect(countMessagesTokens(charEstimateTokenCounter, sent.messages)).toBeLessThan(60_000 - 20_000);
    expect(textOf(sent.messages[0] as AgentMessage)).toContain("compacted into the following summary");
    expect(sent.messages.at(-1)).toMatchObject({
      role: "user",
      content: "Where did we leave the refactoring?",
    });

    await session.close();
    const reopened = await store.openReadOnly("main", sessionId);
    const entries = reopened.entries();
    // The transcript keeps every message, plus the new turn and one new compaction entry.
    expect(entries.filter((entry) => entry.type === "message")).toHaveLength(990 + 2);
    const compactions = entries.filter((entry) => entry.type === "compaction");
    expect(compactions).toHaveLength(3);
    const latest = compactions.at(-1);
    expect(latest?.summarizer).toBe("extractive");
    expect(entries.some((entry) => entry.id === latest?.firstKeptEntryId)).toBe(true);
    expect(latest?.tokensAfter).toBeLessThan(latest?.tokensBefore as number);
    for (const [index, entry] of storedBefore.entries()) expect(entries[index]).toEqual(entry);
    await host.dispose();
  });

  it("prunes old tool results in the request once the prompt cache expired, leaving the transcript alone", async () => {
    const store = new JsonlTranscriptStore({ home });
    const sessionId = await importPiSession(store, "large-session.jsonl");
    const bytesBefore = JSON.stringify((await store.openReadOnly("main", sessionId)).entries());
    const host = new ContextEngineHost({
      registry: createContextEngineRegistry(),
      logger: new MemoryLogger(),
      config: { agents: { defaults: { contextPruning: { mode: "cache-ttl", ttl: "5m" } } } },
      runtimeCompaction: createRuntimeCompaction({ counter: charEstimateTokenCounter }),
    });
    const session = await TranscriptHostSession.openOrCreate(store, { agentId: "main", sessionId });
    const requests: ModelStepRequest[] = [];
    const roomyModel = { ...model, contextWindow: 200_000 };
    const callModel = async (request: ModelStepRequest) => {
      requests.push(request);
      return { messages: [assistantMessage("ok", Date.now())], done: true };
    };
    const turn = await host.runTurn({
      session,
      prompt: "continue",
      systemPrompt: "agent",
      model: roomyModel,
      callModel,
    });
    expect(turn.compactions.filter((outcome) => outcome.trigger !== "threshold")).toEqual([]);
    const trimmed = requests[0]?.messages.filter((message) =>
      textOf(message).includes("[Tool result trimmed:"),
    );
    expect(trimmed?.length).toBeGreaterThan(0);
    await session.close();
    const entriesAfter = (await store.openReadOnly("main", sessionId)).entries();
    expect(JSON.stringify(entriesAfter.slice(0, JSON.parse(bytesBefore).length))).toBe(bytesBefore);

    // Right after a reply the cache is warm again, so the next request is not pruned.
    const warm = await TranscriptHostSession.openOrCreate(store, { agentId: "main", sessionId });
    await host.runTurn({
      session: warm,
      prompt: "and now?",
      systemPrompt: "agent",
      model: roomyModel,
      callModel,
    });
    expect(requests[1]?.messages.some((message) => textOf(message).includes("[Tool result trimmed:"))).toBe(
      false,
    );
    await warm.close();
    await host.dispose();
  });
});
