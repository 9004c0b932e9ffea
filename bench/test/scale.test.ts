import {
  type AgentMessage,
  type AssistantMessage,
  InvalidOptionError,
  type MessageEntry,
  type NewTranscriptEntry,
  type ToolResultMessage,
  type TranscriptEntry,
} from "@clew/core";
import { describe, expect, it } from "vitest";
import { COPY_SPAN_MS, replayMessages } from "../workloads/scale.js";

const usage = {
  input: 0,
  output: 0,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 0,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
};

function entry(id: string, message: MessageEntry["message"]): MessageEntry {
  return { type: "message", id, parentId: null, timestamp: "2025-01-01T00:00:00.000Z", message };
}

const call: AssistantMessage = {
  role: "assistant",
  content: [{ type: "toolCall", id: "toolu_1", name: "read", arguments: { path: "a.ts" } }],
  api: "anthropic-messages",
  provider: "anthropic",
  model: "m",
  usage,
  stopReason: "toolUse",
  timestamp: 2,
};
const answer: ToolResultMessage = {
  role: "toolResult",
  toolCallId: "toolu_1",
  toolName: "read",
  content: [{ type: "text", text: "file" }],
  isError: false,
  timestamp: 3,
};
const source: TranscriptEntry[] = [
  entry("u1", { role: "user", content: "read a.ts", timestamp: 1 }),
  {
    type: "model_change",
    id: "mc",
    parentId: "u1",
    timestamp: "2025-01-01T00:00:00.000Z",
    provider: "p",
    modelId: "m",
  },
  entry("a1", call),
  entry("r1", answer),
];

function toolCallIds(entries: readonly NewTranscriptEntry[]): { calls: string[]; results: string[] } {
  const calls: string[] = [];
  const results: string[] = [];
  for (const replayed of entries) {
    if (replayed.type !== "message") continue;
    const typed = replayed.message as AssistantMessage | ToolResultMessage;
    if (typed.role === "toolResult") results.push(typed.toolCallId);
    if (typed.role === "assistant") {
      for (const block of typed.content) if (block.type === "toolCall") calls.push(block.id);
    }
  }
  return { calls, results };
}

describe("replayMessages", () => {
  it("replays only message entries, copy after copy, until exactly the asked count", () => {
    const replayed = [...replayMessages([source], 7)];
    expect(replayed).toHaveLength(7);
    expect(replayed.every((item) => item.type === "message")).toBe(true);
    expect(replayed.map((item) => item.id)).toEqual(["u1-0", "a1-0", "r1-0", "u1-1", "a1-1", "r1-1", "u1-2"]);
  });

  it("chains every entry to the one before it", () => {
    const replayed = [...replayMessages([source, source], 6)];
    expect(replayed.map((item) => item.parentId)).toEqual([
      null,
      ...replayed.slice(0, -1).map((item) => item.id),
    ]);
  });

  it("makes tool-call ids unique per copy while each result still answers its own call", () => {
    const { calls, results } = toolCallIds([...replayMessages([source], 9)]);
    expect(calls).toEqual(["toolu_1_0", "toolu_1_1", "toolu_1_2"]);
    expect(results).toEqual(calls);
  });

  it("makes no two messages identical: each copy is later in time", () => {
    const replayed = [...replayMessages([source], 9)].flatMap((item): AgentMessage[] =>
      item.type === "message" ? [(item as MessageEntry).message] : [],
    );
    expect(new Set(replayed.map((message) => JSON.stringify(message))).size).toBe(9);
    const userTimes = replayed
      .filter((message) => message.role === "user")
      .map((message) => message.timestamp);
    expect(userTimes).toEqual([0, 1, 2].map((copy) => (userTimes[0] ?? 0) + copy * COPY_SPAN_MS));
  });

  it("leaves the source entries untouched", () => {
    const before = JSON.stringify(source);
    [...replayMessages([source], 9)];
    expect(JSON.stringify(source)).toBe(before);
  });

  it("rejects a count that is not a whole number and sources without messages", () => {
    expect(() => [...replayMessages([source], 2.5)]).toThrow(InvalidOptionError);
    expect(() => [...replayMessages([[]], 1)]).toThrow(/message entry/);
  });
});
