import type { AgentMessage } from "@clew/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LosslessEngine } from "../src/lossless-engine.js";
import { recallPolicy } from "../src/recall-policy.js";
import type { RecallTool } from "../src/tools/recall-tools.js";
import {
  assistantText,
  codingConversation,
  fillerText,
  toolResult,
  userText,
} from "./support/conversations.js";
import { recallToolsOf } from "./support/recall.js";
import { TempEngines } from "./support/temp-engine.js";

const engines = new TempEngines();
const START = Date.UTC(2025, 0, 1, 10);
const messages: AgentMessage[] = [
  userText("We must deploy to eu-west-1 before Friday.", START),
  assistantText("Noted: the deploy goes to eu-west-1, config in infra/deploy.yaml.", START + 60_000),
  toolResult("call_x", "bash", `BEGIN ${fillerText(40_000, 9)} FINISH`, START + 120_000),
  userText("Also rotate the key ABC-12345 tomorrow.", START + 3_600_000),
  ...codingConversation(12, { toolOutputChars: 2_000 }).map(
    (message, index) => ({ ...message, timestamp: START + 7_200_000 + index }) as AgentMessage,
  ),
];
let engine: LosslessEngine;
let search: RecallTool;
let read: RecallTool;
let describeTool: RecallTool;

beforeAll(async () => {
  engine = await engines.engine();
  await engine.afterTurn({ sessionId: "r", sessionFile: "memory:r", messages, prePromptMessageCount: 0 });
  await engine.compact({ sessionId: "r", tokenBudget: 3_000, force: true });
  ({ search, read, describe: describeTool } = recallToolsOf(engine, "r"));
});
afterAll(() => engines.cleanup());

describe("recall_search", () => {
  it("finds messages and summaries, best first, with snippets and ids", async () => {
    const result = await search.execute("1", { query: "eu-west-1" });
    const hits = result.details.hits as Array<{ id: string; kind: string; snippet: string }>;
    expect(hits.slice(0, 3).map((hit) => hit.id)).toEqual(expect.arrayContaining(["m1", "m2"]));
    expect(hits.slice(0, 3).some((hit) => hit.kind === "summary")).toBe(true);
    for (const hit of hits.slice(0, 3)) expect(hit.snippet).toContain("eu-west-1");
    expect(result.content[0]).toMatchObject({ type: "text" });
  });

  it("answers a query with nothing to search for, or no match, with no results", async () => {
    expect((await search.execute("1", { query: "  " })).details.hits).toEqual([]);
    const none = await search.execute("1", { query: "zebra-quokka" });
    expect(none.details.hits).toEqual([]);
    expect((none.content[0] as { text: string }).text).toContain("No stored message");
    // A pasted log that matches nothing is not sent back whole.
    const pasted = await search.execute("1", { query: "zebra ".repeat(40_000) });
    expect((pasted.content[0] as { text: string }).text.length).toBeLessThan(300);
  });
});

describe("recall_read", () => {
  it("reads a time range", async () => {
    const page = await read.execute("1", {
      from: new Date(START + 3_000_000).toISOString(),
      to: new Date(START + 3_700_000).toISOString(),
    });
    expect(page.details.messages.map((entry: { id: string }) => entry.id)).toEqual(["m4"]);
    expect(page.details.messages[0].message).toEqual(messages[3]);
  });

  it("pages through message ids and slices a message larger than a page", async () => {
    const seen: Array<{ id: string; slice?: { start: number; end: number; total: number } }> = [];
    let cursor: string | undefined;
    const texts: string[] = [];
    do {
      const page = await read.execute("1", {
        messageIds: ["m2", "m3", "m4"],
        maxTokens: 2_000,
        ...(cursor ? { cursor } : {}),
      });
      expect(page.details.tokens).toBeLessThanOrEqual(2_000);
      seen.push(...page.details.messages);
      texts.push((page.content[0] as { text: string }).text);
      cursor = page.details.nextCursor;
    } while (cursor !== undefined);
    const slices = seen.filter((entry) => entry.id === "m3").map((entry) => entry.slice);
    expect(slices.length).toBeGreaterThan(4);
    expect(slices[0]?.start).toBe(0);
    expect(slices.at(-1)?.end).toBe(slices.at(-1)?.total);
    const joined = texts.join("");
    expect(joined).toContain("BEGIN ");
    expect(joined).toContain(" FINISH");
    expect(seen.at(-1)?.id).toBe("m4");
  });

  it("rejects a request that selects nothing, or twice, with the reason", async () => {
    await expect(read.execute("1", {})).rejects.toThrow(/exactly one of/);
    await expect(read.execute("1", { summaryId: "sum_0", messageIds: ["m1"] })).rejects.toThrow(
      /exactly one of/,
    );
    await expect(read.execute("1", { messageIds: ["twelve"] })).rejects.toThrow(/not a message id/);
    await expect(read.execute("1", { summaryId: "sum_missing" })).rejects.toThrow(/No summary/);
    await expect(read.execute("1", { from: "yesterday" })).rejects.toThrow(/not an ISO time/);
  });
});

describe("recall_describe", () => {
  it("describes a message and the summary that covers it", async () => {
    const message = await describeTool.execute("1", { id: "m4" });
    expect(message.details).toMatchObject({ kind: "message", id: "m4", role: "user" });
    const [leaf] = message.details.summarizedBy as string[];
    const summary = await describeTool.execute("1", { id: leaf });
    expect(summary.details).toMatchObject({ kind: "summary", summaryKind: "leaf", depth: 0 });
    expect(summary.details.covers).toMatch(/^m1–m\d+$/);
    expect(summary.details.anchors).toContainEqual({ value: "ABC-12345", messages: ["m4"] });
    expect((summary.content[0] as { text: string }).text).toContain("ABC-12345 (m4)");
  });

  it("says clearly when an id names nothing", async () => {
    await expect(describeTool.execute("1", { id: "m999" })).rejects.toThrow(/No message or summary "m999"/);
    await expect(describeTool.execute("1", { id: "sum_nope" })).rejects.toThrow(/No summary "sum_nope"/);
  });
});

describe("recall policy", () => {
  it("stays under 200 tokens and mentions the tools only when they are available", () => {
    const withTools = recallPolicy(undefined);
    expect(Math.ceil(withTools.length / 4)).toBeLessThan(200);
    expect(withTools).toContain("recall_read");
    expect(recallPolicy(new Set(["read"]))).not.toContain("recall_read");
    expect(recallPolicy(new Set(["recall_search", "recall_read", "recall_describe"]))).toBe(withTools);
  });
});
