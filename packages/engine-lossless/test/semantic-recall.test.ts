import { readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import type { AgentMessage, Logger } from "@clew/core";
import { afterAll, describe, expect, it } from "vitest";
import { isRecalledContext } from "../src/assemble/recall-evidence.js";
import { createLosslessEngineFactory } from "../src/create-lossless-engine.js";
import { createSemanticRecall } from "../src/embeddings/semantic-recall.js";
import type { TextEmbedder } from "../src/embeddings/text-embedder.js";
import type { LosslessEngine } from "../src/lossless-engine.js";
import type { LosslessStore } from "../src/store/store.js";
import { assistantText, fillerText, userText } from "./support/conversations.js";
import { assembleAfterCompaction, store as stored } from "./support/preparation.js";
import { recallToolsOf } from "./support/recall.js";
import { TempEngines } from "./support/temp-engine.js";
import { tinyEmbedder, writeTinyVectors } from "./support/word-vectors.js";

const engines = new TempEngines();
afterAll(() => engines.cleanup());
const START = Date.UTC(2025, 3, 1, 9);

const conversation: AgentMessage[] = [
  userText("I am halfway through Piranesi and cannot stop.", START),
  assistantText("Lovely, enjoy it.", START + 1_000),
  userText("I bought a used Volvo yesterday.", START + 2_000),
  assistantText("Congratulations on the purchase.", START + 3_000),
  userText("I have been cooking tagine every Sunday.", START + 4_000),
];

function storeOf(engine: object): LosslessStore {
  return (engine as unknown as { store: LosslessStore }).store;
}

function recordingLogger(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  const ignore = () => undefined;
  return { warnings, debug: ignore, info: ignore, error: ignore, warn: (message) => warnings.push(message) };
}

describe("search by meaning", () => {
  it("recall_search finds a message that shares no word with the query, matched by meaning", async () => {
    const wordVectors = await writeTinyVectors(await engines.directory());
    const engine = await engines.engine({ wordVectors });
    await stored(engine, "s", conversation);
    const { search } = recallToolsOf(engine, "s");
    const result = await search.execute("1", { query: "which novel is being read" });
    const hits = result.details.hits as Array<{ id: string; matchedBy: string[] }>;
    expect(hits[0]).toMatchObject({ id: "m1", matchedBy: ["meaning"] });
    const car = await search.execute("1", { query: "what car does she drive" });
    expect((car.details.hits as Array<{ id: string }>)[0]?.id).toBe("m3");
  });

  it("an engine with an embedder lists meaning hits after the words, and recalls them as evidence", async () => {
    const engine = await engines.engine({ embedder: tinyEmbedder() });
    await stored(engine, "s", conversation);
    const { search } = recallToolsOf(engine, "s");
    const hits = (await search.execute("1", { query: "which novel is halfway read" })).details.hits as Array<{
      id: string;
      matchedBy: string[];
    }>;
    // "halfway" is a word of m1: found by the words and by meaning.
    expect(hits[0]).toMatchObject({ id: "m1", matchedBy: ["text", "meaning"] });
    const car = (await search.execute("1", { query: "what car does she drive" })).details.hits as Array<{
      id: string;
      matchedBy: string[];
    }>;
    expect(car[0]).toMatchObject({ id: "m3", matchedBy: ["meaning"] });
    const messages = [...conversation];
    for (let turn = 0; turn < 40; turn++)
      messages.push(userText(`Notes ${turn}: ${fillerText(300, turn + 1)}`, START + 10_000 + turn));
    const result = await assembleAfterCompaction(engine, messages, 3_000, "Which car should I drive?");
    expect(JSON.stringify(result.messages.find(isRecalledContext))).toContain(
      "I bought a used Volvo yesterday.",
    );
  });

  it("with words alone, the same query finds nothing", async () => {
    const engine = await engines.engine({ wordVectors: false });
    await stored(engine, "s", conversation);
    const { search } = recallToolsOf(engine, "s");
    expect((await search.execute("1", { query: "which novel is being read" })).details.hits).toEqual([]);
  });

  it("catches up with messages stored after the index was built, embedding each message once", async () => {
    const engine = await engines.engine();
    const inner = tinyEmbedder();
    let embedded = 0;
    const counting: TextEmbedder = {
      id: inner.id,
      dimensions: inner.dimensions,
      embed: async (texts) => {
        embedded += texts.length;
        return inner.embed(texts);
      },
    };
    const meaning = createSemanticRecall(counting, { logger: recordingLogger() });
    await stored(engine, "s", conversation.slice(0, 2));
    const store = storeOf(engine);
    expect(await meaning.nearestMessages(store, "s", "car", { limit: 3, minScore: 0.6 })).toEqual([]);
    expect(embedded).toBe(3); // two messages and the query
    await stored(engine, "s", conversation);
    const hits = await meaning.nearestMessages(store, "s", "car", { limit: 3, minScore: 0.6 });
    expect(hits.map((hit) => hit.key)).toEqual([3]);
    expect(hits[0]?.score).toBeGreaterThan(0.9);
    expect(embedded).toBe(3 + 3 + 1); // only the three new messages, then the query
  });

  it("turns an embedder failure or a file that cannot be loaded into no hits, logged once", async () => {
    const engine = await engines.engine();
    await stored(engine, "s", conversation);
    const logger = recordingLogger();
    const broken: TextEmbedder = {
      id: "broken",
      dimensions: 4,
      embed: async () => {
        throw new Error("worker gone");
      },
    };
    const meaning = createSemanticRecall(broken, { logger });
    expect(await meaning.nearestMessages(storeOf(engine), "s", "car", { limit: 3 })).toEqual([]);
    expect(await meaning.nearestMessages(storeOf(engine), "s", "novel", { limit: 3 })).toEqual([]);
    expect(logger.warnings).toEqual(["lossless: search by meaning is unavailable; recall uses words alone"]);

    const missing = await engines.engine({ wordVectors: "/nonexistent/vectors.txt" });
    await stored(missing, "s", conversation);
    const { search } = recallToolsOf(missing, "s");
    const result = await search.execute("1", { query: "Piranesi" });
    expect((result.details.hits as Array<{ id: string }>).map((hit) => hit.id)).toEqual(["m1"]);
  });

  it("query-aware assembly recalls, by meaning, an early message the prompt shares no word with", async () => {
    const messages: AgentMessage[] = [...conversation];
    for (let turn = 0; turn < 60; turn++) {
      const at = START + 10_000 + turn * 1_000;
      messages.push(
        userText(`Notes ${turn}: ${fillerText(300, turn + 1)}`, at),
        assistantText("Noted.", at + 1),
      );
    }
    const prompt = "Which novel should we discuss?";
    const assembleWith = async (options: { wordVectors?: string | false }) => {
      const engine = await engines.engine(options);
      await stored(engine, "s", messages);
      await engine.compact({ sessionId: "s", tokenBudget: 3_000, force: true });
      const result = await engine.assemble({ sessionId: "s", messages, tokenBudget: 3_000, prompt });
      return result.messages.find(isRecalledContext);
    };
    const withMeaning = await assembleWith({
      wordVectors: await writeTinyVectors(await engines.directory()),
    });
    expect(JSON.stringify(withMeaning)).toContain("I am halfway through Piranesi and cannot stop.");
    expect(JSON.stringify((await assembleWith({ wordVectors: false })) ?? null)).not.toContain("Piranesi");
  });

  it("ranks against the session's mean, so what every message shares does not decide the match", async () => {
    // Averaged word vectors all lean one common way (the first axis here): raw cosines put the
    // plain messages above the one that differs in the query's direction.
    const vectors: Record<string, number[]> = {
      "the relay key changed": [1, 0.5, 0, 0],
      "plain one": [1, 0, 0.1, 0],
      "plain two": [1, 0, 0, 0.1],
      "plain three": [1, 0.05, 0.05, 0],
      "plain four": [1, 0, 0.08, 0.05],
      query: [1, 0.15, 0, 0],
    };
    const fixed: TextEmbedder = {
      id: "fixed",
      dimensions: 4,
      embed: async (texts) => texts.map((text) => Float32Array.from(vectors[text] ?? [0, 0, 0, 0])),
    };
    const engine = await engines.engine();
    const texts = Object.keys(vectors).filter((text) => text !== "query");
    await stored(
      engine,
      "s",
      texts.map((text, index) => userText(text, START + index)),
    );
    const meaning = createSemanticRecall(fixed, { logger: recordingLogger() });
    const [best] = await meaning.nearestMessages(storeOf(engine), "s", "query", { limit: 1 });
    expect(best?.key).toBe(1);
  });

  it("a factory reads the word-vector file once for all the engines it makes", async () => {
    const directory = await engines.directory();
    const wordVectors = await writeTinyVectors(directory);
    const factory = createLosslessEngineFactory({ wordVectors });
    const first = (await factory({ agentDir: join(directory, "a") })) as LosslessEngine;
    await stored(first, "s", conversation);
    expect(
      (await recallToolsOf(first, "s").search.execute("1", { query: "which novel" })).details.hits,
    ).toMatchObject([{ id: "m1", matchedBy: ["meaning"] }]);
    // Gone (and its cache too): a second engine could only search by meaning with the table read before.
    await rm(wordVectors);
    for (const name of await readdir(directory))
      if (name.endsWith(".clewvec")) await rm(join(directory, name));
    const second = (await factory({ agentDir: join(directory, "b") })) as LosslessEngine;
    await stored(second, "s", conversation);
    const hits = (await recallToolsOf(second, "s").search.execute("1", { query: "which novel" })).details
      .hits;
    expect(hits).toMatchObject([{ id: "m1", matchedBy: ["meaning"] }]);
    await Promise.all([first.dispose(), second.dispose()]);
  });

  it("a factory reads the word-vector file only when it makes its first engine", async () => {
    const directory = await engines.directory();
    const wordVectors = join(directory, "later.txt");
    // Registering the plugin makes a factory (clew doctor does, and never makes an engine).
    const factory = createLosslessEngineFactory({ wordVectors });
    await writeTinyVectors(directory, "later.txt");
    const engine = (await factory({ agentDir: join(directory, "a") })) as LosslessEngine;
    await stored(engine, "s", conversation);
    const hits = (await recallToolsOf(engine, "s").search.execute("1", { query: "which novel" })).details
      .hits;
    expect(hits).toMatchObject([{ id: "m1", matchedBy: ["meaning"] }]);
    await engine.dispose();
  });

  it("rejects a bad wordVectors option before opening anything", async () => {
    await expect(engines.engine({ wordVectors: "" })).rejects.toThrow(/lossless\.wordVectors/);
    // A misspelt "builtin" is not taken for a file that is then missing at the first search.
    await expect(engines.engine({ wordVectors: " Builtin" })).rejects.toThrow(/"builtin" exactly/);
    await expect(engines.engine({ wordVectors: true as unknown as string })).rejects.toThrow(
      /lossless\.wordVectors.*or false/,
    );
    // Two ways to search by meaning at once, or a table with words alone: which one is meant?
    await expect(engines.engine({ embedder: tinyEmbedder(), wordVectors: "builtin" })).rejects.toThrow(
      /lossless\.wordVectors/,
    );
    const table = {
      dimensions: 1,
      rows: new Map(),
      components: new Int8Array(0),
      scales: new Float32Array(0),
    };
    await expect(engines.engine({ wordVectors: false, wordVectorTable: table })).rejects.toThrow(
      /lossless\.wordVectorTable/,
    );
    // An embedder with word vectors turned off is the embedder alone.
    await expect(engines.engine({ embedder: tinyEmbedder(), wordVectors: false })).resolves.toBeDefined();
  });
});
