import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type AgentMessage,
  charEstimateTokenCounter,
  countMessagesTokens,
  JsonlTranscriptStore,
} from "@clew/core";
import {
  assistantText,
  assistantToolCall,
  runContextEngineContractSuite,
  toolResult,
  userText,
} from "@clew/plugin-sdk/testing";
import { afterEach, describe, expect, it } from "vitest";
import { Bm25Index, bm25Scores } from "../../baselines/bm25.js";
import { Bm25Engine } from "../../baselines/bm25-engine.js";
import { RecencyEngine } from "../../baselines/recency-engine.js";
import { textTerms } from "../../baselines/text-terms.js";

const counter = charEstimateTokenCounter;

describe("BM25", () => {
  it("ranks the document holding an exact rare term first", () => {
    const index = new Bm25Index<string>();
    index.add("weather", textTerms("The weather was grey and the deploy went fine."));
    index.add("key", textTerms("The deploy key for staging is NDL-7K2MQ9TB, keep it safe."));
    index.add("other", textTerms("Another deploy, another day; the deploy log is long."));
    expect(index.search(textTerms("NDL-7K2MQ9TB"), 3).map((hit) => hit.id)).toEqual(["key"]);
    expect(index.search(textTerms("staging deploy key"), 1)[0]?.id).toBe("key");
  });

  it("keeps document order for equal scores and answers nothing for unknown terms", () => {
    const index = new Bm25Index<number>();
    index.add(0, ["alpha", "beta"]);
    index.add(1, ["alpha", "beta"]);
    expect(index.search(["alpha"], 2).map((hit) => hit.id)).toEqual([0, 1]);
    expect(index.search(["gamma"], 2)).toEqual([]);
    expect(new Bm25Index<number>().search(["alpha"], 5)).toEqual([]);
  });

  it("scores rebuilt documents exactly as the index does", () => {
    const texts = ["the deploy key for staging", "deploy log", "unrelated words here"];
    const index = new Bm25Index<number>();
    for (const [position, text] of texts.entries()) index.add(position, textTerms(text));
    const documents = texts.map((text) => {
      const terms = textTerms(text);
      return {
        length: terms.length,
        frequency: (term: string) => terms.filter((item) => item === term).length,
      };
    });
    const scores = bm25Scores(documents, textTerms("deploy key"));
    for (const hit of index.search(textTerms("deploy key"), 3))
      expect(scores[hit.id]).toBeCloseTo(hit.score, 12);
    expect(scores[2]).toBe(0);
  });

  it("tokenizes codes into their parts and drops function words", () => {
    expect(textTerms("What is the key? NDL-7K2MQ9TB")).toEqual(["key", "ndl", "7k2mq9tb"]);
  });
});

/** A conversation: turn 0 talks about cats, turn 1 reads a file through a tool, turn 2 about dogs. */
function history(): AgentMessage[] {
  return [
    userText("Tell me about cats and their whiskers.", 1),
    assistantText("Cats use whiskers to judge gaps.", 2),
    userText("Read the config please.", 3),
    assistantToolCall("call_1", "read", { path: "config.json" }, 4),
    toolResult("call_1", "read", '{ "port": 8080 }', 5),
    assistantText("The port is 8080.", 6),
    userText("Now tell me about dogs and their noses.", 7),
    assistantText("Dogs smell far better than people.", 8),
  ];
}

describe("the recency baseline", () => {
  it("keeps the newest whole tool groups that fit, starting at a user message", async () => {
    const engine = new RecencyEngine(counter);
    const all = history();
    const lastTwo = countMessagesTokens(counter, all.slice(4));
    const result = await engine.assemble({ sessionId: "s", messages: all, tokenBudget: lastTwo });
    // The tool result alone would fit but is part of the call's group; the group start is not a user turn.
    expect(result.messages).toEqual(all.slice(6));
    expect(countMessagesTokens(counter, result.messages)).toBeLessThanOrEqual(lastTwo);
    const roomy = await engine.assemble({ sessionId: "s", messages: all, tokenBudget: 10_000 });
    expect(roomy.messages).toEqual(all);
  });
});

describe("the bm25 baseline", () => {
  it("sends the best-matching turns that fit, in chronological order", async () => {
    const engine = new Bm25Engine(counter);
    const all = history();
    const budget = countMessagesTokens(counter, [...all.slice(0, 2), ...all.slice(6)]);
    const result = await engine.assemble({
      sessionId: "s",
      messages: all,
      tokenBudget: budget,
      prompt: "What did we say about whiskers and noses?",
    });
    expect(result.messages).toEqual([...all.slice(0, 2), ...all.slice(6)]);
  });

  it("always keeps the turn in progress during a tool loop", async () => {
    const engine = new Bm25Engine(counter);
    const all = history().slice(0, 5);
    const result = await engine.assemble({
      sessionId: "s",
      messages: all,
      tokenBudget: countMessagesTokens(counter, all.slice(2)),
      prompt: "Read the config please.",
    });
    expect(result.messages).toEqual(all.slice(2));
  });

  it("stores each message once and reads it back byte for byte through its recall tool", async () => {
    const engine = new Bm25Engine(counter);
    const all = history();
    await engine.ingestBatch({ sessionId: "s", messages: all });
    expect((await engine.ingestBatch({ sessionId: "s", messages: all })).ingestedCount).toBe(0);
    const recall = engine.recall("s");
    const [first] = await recall.search("whiskers", 1);
    expect(await recall.read(first ?? "")).toEqual(all[0]);
    expect(await recall.list?.()).toHaveLength(all.length);
    expect(await recall.read("m999")).toBeUndefined();
  });

  describe("bootstrap", () => {
    let home: string;
    afterEach(async () => {
      await rm(home, { recursive: true, force: true });
    });

    it("imports a session file once, however often it runs", async () => {
      home = await mkdtemp(join(tmpdir(), "clew-bm25-"));
      const store = new JsonlTranscriptStore({ home, fsync: "never" });
      const transcript = await store.create({ agentId: "main", sessionId: "boot" });
      await transcript.append(history().map((message) => ({ type: "message" as const, message })));
      await transcript.close();
      const engine = new Bm25Engine(counter);
      const sessionFile = store.transcriptPath("main", "boot");
      expect(await engine.bootstrap({ sessionId: "boot", sessionFile })).toMatchObject({
        importedMessages: 8,
      });
      expect(await engine.bootstrap({ sessionId: "boot", sessionFile })).toMatchObject({
        importedMessages: 0,
      });
      expect(await engine.recall("boot").list?.()).toHaveLength(8);
    });
  });
});

runContextEngineContractSuite("recency baseline", {
  createEngine: () => new RecencyEngine(counter),
  skip: { "compact-reduces-context": "baselines select at assemble time and never compact" },
});
runContextEngineContractSuite("bm25 baseline", {
  createEngine: () => new Bm25Engine(counter),
  skip: { "compact-reduces-context": "baselines select at assemble time and never compact" },
});
