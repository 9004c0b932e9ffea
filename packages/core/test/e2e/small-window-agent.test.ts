import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  type AgentMessage,
  type AssistantMessage,
  ContextEngineHost,
  ContextOverflowError,
  charEstimateTokenCounter,
  countMessagesTokens,
  createContextEngineRegistry,
  createRuntimeCompaction,
  type HostModel,
  MemoryLogger,
  type ModelStepFunction,
  type ModelStepRequest,
  PRECHECK_SAFETY_MARGIN,
  type ToolResultMessage,
  TranscriptHostSession,
} from "../../src/index.js";
import { JsonlTranscriptStore } from "../../src/transcript/jsonl/jsonl-transcript-store.js";
import { assistantMessage, userMessage } from "../support.js";

/** A coding agent at a 32k window with a small reserve, as in the bench's long-transcript run. */
const model: HostModel = {
  id: "small",
  provider: "anthropic",
  api: "anthropic-messages",
  contextWindow: 32_000,
};
const SYSTEM = "You are a coding agent.";
const RESULT_CHARS = 40_000;
const counter = charEstimateTokenCounter;

let home: string;
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), "clew-small-window-"));
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

/** 40 KB of distinct lines, so a head and a tail can be told apart from the middle. */
function fileText(name: string, chars = RESULT_CHARS): string {
  const lines: string[] = [];
  let length = 0;
  for (let line = 0; length < chars; line++) {
    const text = `${name} line ${line}: const value${line} = compute(${line});`;
    lines.push(text);
    length += text.length + 1;
  }
  return `BEGIN ${name}\n${lines.join("\n").slice(0, chars)}\nEND ${name}`;
}

function toolCalls(ids: string[]): AssistantMessage {
  return {
    ...assistantMessage(""),
    content: ids.map((id) => ({
      type: "toolCall" as const,
      id,
      name: "read",
      arguments: { path: `${id}.ts` },
    })),
    stopReason: "toolUse",
  };
}

function toolResult(id: string): ToolResultMessage {
  return {
    role: "toolResult",
    toolCallId: id,
    toolName: "read",
    content: [{ type: "text", text: fileText(id) }],
    isError: false,
    timestamp: 3,
  };
}

/** Small earlier turns, then a turn whose last two steps read four 40 KB files (40k tokens). */
function agentHistory(): AgentMessage[] {
  const messages: AgentMessage[] = [];
  for (let turn = 0; turn < 8; turn++) {
    messages.push(userMessage(`earlier request ${turn} about module M${turn}`));
    messages.push(assistantMessage(`done with M${turn}: ${"notes ".repeat(150)}`));
  }
  messages.push(userMessage("refactor the parser"));
  const firstReads = ["parser_a", "parser_b", "lexer"];
  messages.push(toolCalls(firstReads), ...firstReads.map(toolResult));
  messages.push(toolCalls(["syntax_tree"]), toolResult("syntax_tree"));
  return messages;
}

interface Setup {
  host: ContextEngineHost;
  store: JsonlTranscriptStore;
  session: TranscriptHostSession;
}

async function setup(history: AgentMessage[]): Promise<Setup> {
  const store = new JsonlTranscriptStore({ home, fsync: "never" });
  const session = await TranscriptHostSession.openOrCreate(store, { agentId: "main", sessionId: "s1" });
  await session.append(history);
  const host = new ContextEngineHost({
    registry: createContextEngineRegistry(),
    logger: new MemoryLogger(),
    config: { agents: { defaults: { compaction: { reserveTokens: 0 } } } },
    tokenCounter: counter,
    runtimeCompaction: createRuntimeCompaction({ counter, keepRecentTokens: 20_000 }),
  });
  return { host, store, session };
}

/** What the precheck counts for a request: system prompt and messages, with its margin. */
function estimateOf(request: ModelStepRequest): number {
  return Math.ceil(
    (counter.countText(request.systemPrompt) + countMessagesTokens(counter, request.messages)) *
      PRECHECK_SAFETY_MARGIN,
  );
}

async function storedEntries(store: JsonlTranscriptStore) {
  const transcript = await store.openReadOnly("main", "s1");
  const entries = transcript.entries();
  await transcript.close();
  return entries;
}

function expectEveryResultAfterItsCall(messages: readonly AgentMessage[]): void {
  const called = new Set<string>();
  for (const message of messages) {
    if (message.role === "assistant") {
      for (const block of message.content) if (block.type === "toolCall") called.add(block.id);
    }
    if (message.role === "toolResult") expect(called.has(message.toolCallId)).toBe(true);
  }
}

describe("the legacy engine at a 32k window with 40 KB tool results", () => {
  it("continues a turn whose recent steps alone exceed the budget, keeping the transcript whole", async () => {
    const { host, store, session } = await setup(agentHistory());
    const entriesBefore = await storedEntries(store);
    const requests: ModelStepRequest[] = [];
    const result = await host.runTurn({
      session,
      prompt: "now write the tests",
      systemPrompt: SYSTEM,
      model,
      callModel: async (request) => {
        requests.push(request);
        return { messages: [assistantMessage("tests written")], done: true };
      },
    });

    expect(result.newMessages.at(-1)).toMatchObject({ content: [{ text: "tests written" }] });
    const sent = requests.at(-1) as ModelStepRequest;
    expect(estimateOf(sent)).toBeLessThanOrEqual(model.contextWindow as number);
    expectEveryResultAfterItsCall(sent.messages);
    expect(sent.messages.at(-1)).toMatchObject({ role: "user", content: "now write the tests" });
    expect(result.compactions.some((outcome) => outcome.result.compacted)).toBe(true);

    await session.close();
    const entriesAfter = await storedEntries(store);
    for (const [index, entry] of entriesBefore.entries()) expect(entriesAfter[index]).toEqual(entry);
    expect(JSON.stringify(entriesAfter)).toContain(JSON.stringify(fileText("parser_a")));
    await host.dispose();
  });

  it("cuts the kept tool results head and tail in the request when one step's results alone overflow", async () => {
    const calls = ["big_a", "big_b", "big_c", "big_d"];
    const { host, store, session } = await setup([
      ...agentHistory(),
      assistantMessage("read them all"),
      userMessage("read the three generated files"),
      toolCalls(calls),
      ...calls.map(toolResult),
    ]);
    const requests: ModelStepRequest[] = [];
    await host.runTurn({
      session,
      prompt: "what do they have in common?",
      systemPrompt: SYSTEM,
      model,
      callModel: async (request) => {
        requests.push(request);
        return { messages: [assistantMessage("they all compute values")], done: true };
      },
    });

    const sent = requests.at(-1) as ModelStepRequest;
    expect(estimateOf(sent)).toBeLessThanOrEqual(model.contextWindow as number);
    expectEveryResultAfterItsCall(sent.messages);
    const results = sent.messages.filter((message) => message.role === "toolResult");
    expect(results.map((message) => message.toolCallId)).toEqual(calls);
    for (const [index, message] of results.entries()) {
      const text = JSON.stringify(message.content);
      expect(text).toContain(`BEGIN ${calls[index]}`);
      expect(text).toContain(`END ${calls[index]}`);
      expect(text).toContain("more characters truncated");
    }
    await session.close();
    expect(JSON.stringify(await storedEntries(store))).toContain(JSON.stringify(fileText("big_d")));
    await host.dispose();
  });

  it("runs a tool loop that needs more than three compactions in one turn", async () => {
    const { host, session } = await setup(agentHistory().slice(0, 16));
    const requests: ModelStepRequest[] = [];
    const files = Array.from({ length: 12 }, (_, index) => `file_${index}`);
    const callModel: ModelStepFunction = async (request) => {
      requests.push(request);
      const file = files[request.step];
      if (file === undefined) return { messages: [assistantMessage("read everything")], done: true };
      return { messages: [toolCalls([file]), toolResult(file)], done: false };
    };
    const result = await host.runTurn({
      session,
      prompt: "read every file",
      systemPrompt: SYSTEM,
      model,
      callModel,
    });

    expect(result.steps).toBe(files.length + 1);
    expect(result.compactions.filter((outcome) => outcome.result.compacted).length).toBeGreaterThan(3);
    for (const request of requests) {
      expect(estimateOf(request)).toBeLessThanOrEqual(model.contextWindow as number);
      expectEveryResultAfterItsCall(request.messages);
    }
    await session.close();
    await host.dispose();
  });

  it("fails with ContextOverflowError only when the newest turn alone cannot fit", async () => {
    const { host, store, session } = await setup(agentHistory());
    const turn = host.runTurn({
      session,
      prompt: `please look at this: ${"z".repeat(200_000)}`,
      systemPrompt: SYSTEM,
      model,
      callModel: async () => ({ messages: [assistantMessage("unreachable")], done: true }),
    });
    await expect(turn).rejects.toThrow(ContextOverflowError);
    await expect(turn).rejects.toThrow(
      /^Context overflow: prompt too large for the model \(precheck\)\. Compaction did not help: the system prompt and the new messages alone take about \d+ tokens, over the budget of 32000\./,
    );
    await session.close();
    const stored = await storedEntries(store);
    // No summary could make room, so the raw history was not compacted for nothing.
    expect(stored.filter((entry) => entry.type === "compaction")).toEqual([]);
    const last = stored.at(-1);
    expect(last?.type === "message" ? last.message : undefined).toMatchObject({
      role: "assistant",
      stopReason: "error",
    });
    await host.dispose();
  });
});
