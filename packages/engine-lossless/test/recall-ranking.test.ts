import type { AgentMessage } from "@clew/core";
import { afterAll, describe, expect, it } from "vitest";
import { recallSearch } from "../src/recall/recall-search.js";
import type { LosslessStore } from "../src/store/store.js";
import {
  assistantText,
  assistantToolCall,
  fillerText,
  toolResult,
  userText,
} from "./support/conversations.js";
import { store as stored } from "./support/preparation.js";
import { recallToolsOf } from "./support/recall.js";
import { TempEngines } from "./support/temp-engine.js";

const engines = new TempEngines();
afterAll(() => engines.cleanup());
const START = Date.UTC(2025, 5, 1, 8);

/** 40 turns, each stating one variant of the same fact, so summaries of old turns match as well. */
function repeatedFact(): AgentMessage[] {
  const messages: AgentMessage[] = [];
  for (let turn = 0; turn < 40; turn++) {
    const at = START + turn * 60_000;
    messages.push(
      userText(
        `The quasar-7 relay key for region ${turn} is QK-${1000 + turn}. ${fillerText(400, turn + 1)}`,
        at,
      ),
      assistantText(`Noted the quasar-7 relay key for region ${turn}.`, at + 1),
    );
  }
  return messages;
}

describe("recall_search ranking", () => {
  it("lists a summary after the messages it covers, so it never pushes a matching message out", async () => {
    const engine = await engines.engine();
    const messages = repeatedFact();
    await stored(engine, "s", messages);
    await engine.compact({ sessionId: "s", tokenBudget: 3_000, force: true });
    const { search } = recallToolsOf(engine, "s");
    const top = (await search.execute("1", { query: "quasar-7 relay key", limit: 10 })).details
      .hits as Array<{
      id: string;
      kind: string;
    }>;
    expect(top).toHaveLength(10);
    expect(top.every((hit) => hit.kind === "message")).toBe(true);

    const all = (await search.execute("1", { query: "quasar-7 relay key", limit: 200 })).details
      .hits as Array<{
      kind: string;
    }>;
    // Still found with room to spare: they only stop crowding out the messages they cover.
    expect(all.some((hit) => hit.kind === "summary")).toBe(true);
  });
});

/** Turns reading files under src/billing/, and one turn, in the middle, saying the webhook secret. */
function billingSession(): AgentMessage[] {
  const messages: AgentMessage[] = [];
  for (let turn = 0; turn < 30; turn++) {
    const at = START + turn * 60_000;
    const path = `src/billing/part${turn}.ts`;
    const task =
      turn === 12
        ? "Heads up: the signing secret for the billing webhook is now WH-5521."
        : `Task ${turn}: tidy ${path}. ${fillerText(300, turn + 1)}`;
    messages.push(
      userText(task, at),
      assistantToolCall(`call_${turn}`, "read", { path }, at + 1),
      toolResult(
        `call_${turn}`,
        "read",
        turn === 5 ? "Error: connect ECONNREFUSED 127.0.0.1:5432" : `export const part${turn} = ${turn};`,
        at + 2,
      ),
      assistantText(`Tidied ${path}.`, at + 3),
    );
  }
  return messages;
}

describe("recall_search and anchors", () => {
  it("credits an anchor's messages for an identifier, not for a plain word inside a path", async () => {
    const engine = await engines.engine();
    await stored(engine, "s", billingSession());
    await engine.compact({ sessionId: "s", tokenBudget: 2_000, force: true });
    const { search } = recallToolsOf(engine, "s");
    type Hit = { id: string; kind: string; matchedBy: string[]; snippet: string };
    const question = (
      await search.execute("1", { query: "What is the signing secret for the billing webhook?" })
    ).details.hits as Hit[];
    // Before: every message that read a src/billing/ path was credited as an anchor match too,
    // and they all ranked above the one answer.
    expect(question[0]?.snippet).toContain("WH-5521");
    const path = (await search.execute("1", { query: "src/billing/part7.ts" })).details.hits as Hit[];
    const reader = path.find((hit) => hit.kind === "message" && hit.matchedBy.includes("anchor"));
    expect(reader).toBeDefined();
    // A word in capitals is an identifier: an error code still earns its messages anchor credit.
    const code = (await search.execute("1", { query: "ECONNREFUSED" })).details.hits as Hit[];
    expect(code.find((hit) => hit.kind === "message")?.matchedBy).toContain("anchor");
  });
});

describe("recall_search and long messages", () => {
  it("ranks a long message holding every word of the query above short ones holding one", async () => {
    const engine = await engines.engine();
    const messages: AgentMessage[] = [];
    // 40 short messages, each with one word of the question: all 41 matches are candidates.
    for (let turn = 0; turn < 20; turn++) {
      const at = START + turn * 60_000;
      const word = ["build", "signature", "canary", "metrics", "cluster"][turn % 5];
      messages.push(
        userText(`Please check the ${word} notes for turn ${turn}.`, at),
        assistantText(`The ${word} looks fine for turn ${turn}.`, at + 1),
      );
    }
    const carrier = `Build log follows. ${fillerText(6_000, 7)} For the record, the build signature for the canary metrics cluster is NDL-4Q7ZK2PA. ${fillerText(6_000, 8)}`;
    messages.splice(20, 0, userText(carrier, START + 10 * 60_000 + 5));
    await stored(engine, "s", messages);
    const { search, read } = recallToolsOf(engine, "s");
    const hits = (
      await search.execute("1", { query: "What is the build signature for the canary metrics cluster" })
    ).details.hits as Array<{ id: string }>;
    const first = await read.execute("2", { messageIds: [hits[0]?.id ?? ""] });
    expect(JSON.stringify(first.details)).toContain("NDL-4Q7ZK2PA");
  });
});

describe("recall_search reads", () => {
  it("reads each stored message and summary at most once per search", async () => {
    const engine = await engines.engine();
    await stored(engine, "s", repeatedFact());
    await engine.compact({ sessionId: "s", tokenBudget: 3_000, force: true });
    const store = (engine as unknown as { store: LosslessStore }).store;
    const seqsRead: number[] = [];
    const summariesRead: string[] = [];
    const counting = Object.create(store) as LosslessStore;
    counting.readMessages = (sessionId, seqs) => {
      seqsRead.push(...seqs);
      return store.readMessages(sessionId, seqs);
    };
    counting.readSummaries = (sessionId, ids) => {
      summariesRead.push(...ids);
      return store.readSummaries(sessionId, ids);
    };
    const hits = await recallSearch(counting, "s", "quasar-7 relay key", 200);
    expect(hits.some((hit) => hit.kind === "summary")).toBe(true);
    expect(seqsRead.length).toBeGreaterThan(0);
    expect(new Set(seqsRead).size).toBe(seqsRead.length);
    expect(new Set(summariesRead).size).toBe(summariesRead.length);
  });
});
