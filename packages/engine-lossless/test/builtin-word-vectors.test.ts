import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { AgentMessage } from "@clew/core";
import { afterAll, describe, expect, it } from "vitest";
import { isRecalledContext } from "../src/assemble/recall-evidence.js";
import {
  BUILTIN_MAX_WORDS,
  BUILTIN_WORD_VECTORS,
  BUILTIN_WORD_VECTORS_PATH,
  loadWordVectors,
  readShippedTable,
  type WordVectorTable,
} from "../src/embeddings/word-vectors/word-vector-table.js";
import { assistantText, fillerText, userText } from "./support/conversations.js";
import { store as stored } from "./support/preparation.js";
import { recallToolsOf } from "./support/recall.js";
import { TempEngines } from "./support/temp-engine.js";

const engines = new TempEngines();
afterAll(() => engines.cleanup());
const START = Date.UTC(2025, 3, 1, 9);

function cosine(table: WordVectorTable, first: string, second: string): number {
  const rowOf = (word: string) => {
    const row = table.rows.get(word);
    if (row === undefined) throw new Error(`${word} is not in the table`);
    return row * table.dimensions;
  };
  const [a, b] = [rowOf(first), rowOf(second)];
  let dot = 0;
  let normA = 0;
  let normB = 0;
  for (let index = 0; index < table.dimensions; index++) {
    const x = table.components[a + index] ?? 0;
    const y = table.components[b + index] ?? 0;
    dot += x * y;
    normA += x * x;
    normB += y * y;
  }
  return dot / Math.sqrt(normA * normB);
}

// Chatter first, so the early facts are far outside the fresh tail of a small budget.
function conversationWith(facts: readonly string[]): AgentMessage[] {
  const messages: AgentMessage[] = facts.flatMap((fact, index) => [
    userText(fact, START + index * 2_000),
    assistantText("Good to know.", START + index * 2_000 + 1_000),
  ]);
  for (let turn = 0; turn < 60; turn++) {
    const at = START + 100_000 + turn * 1_000;
    messages.push(
      userText(`Notes ${turn}: ${fillerText(300, turn + 1)}`, at),
      assistantText("Noted.", at + 1),
    );
  }
  return messages;
}

const FACTS = [
  "My sister plays the violin in a youth orchestra.",
  "We had pasta with too much garlic last night.",
  "The weather was grey and rainy all week.",
];

describe('wordVectors: "builtin"', () => {
  it("loads the shipped table: 30,000 words of 100 dimensions, near words nearer than far ones", async () => {
    const table = await loadWordVectors(BUILTIN_WORD_VECTORS);
    expect(table.rows.size).toBe(BUILTIN_MAX_WORDS);
    expect(table.dimensions).toBe(100);
    expect(table.components.length).toBe(BUILTIN_MAX_WORDS * 100);
    expect(cosine(table, "car", "truck")).toBeGreaterThan(cosine(table, "car", "volvo"));
    expect(cosine(table, "car", "volvo")).toBeGreaterThan(0.4);
    expect(cosine(table, "car", "banana")).toBeLessThan(0.3);
    expect(cosine(table, "instrument", "violin")).toBeGreaterThan(0.4);
  });

  it("names the file and what is wrong when the shipped table is missing or damaged", async () => {
    const directory = await engines.directory();
    const bytes = await readFile(BUILTIN_WORD_VECTORS_PATH);
    const missing = join(directory, "missing.clewvec");
    await expect(readShippedTable(missing)).rejects.toThrow(
      `${missing}: the shipped word vectors cannot be read (ENOENT)`,
    );
    const truncated = join(directory, "truncated.clewvec");
    await writeFile(truncated, bytes.subarray(0, bytes.length - 100));
    await expect(readShippedTable(truncated)).rejects.toThrow(
      /damaged: the file holds \d+ bytes where its header implies \d+/,
    );
    // The first scale, right after the header and the word list, made NaN.
    const header = JSON.parse(bytes.subarray(12, 12 + bytes.readUInt32LE(8)).toString("utf8")) as {
      wordsBytes: number;
    };
    const badScale = Buffer.from(bytes);
    badScale.writeFloatLE(Number.NaN, 12 + bytes.readUInt32LE(8) + header.wordsBytes);
    const nan = join(directory, "nan.clewvec");
    await writeFile(nan, badScale);
    await expect(readShippedTable(nan)).rejects.toThrow("a scale that is not a positive number");
    const other = join(directory, "other.clewvec");
    await writeFile(other, "not a table");
    await expect(readShippedTable(other)).rejects.toThrow("does not start with CLEWVEC1");
  });

  it("recall_search finds, by meaning, a message that shares no word with the query (the default)", async () => {
    // No wordVectors option: the engine as it ships.
    const engine = await engines.engine();
    await stored(engine, "s", conversationWith(FACTS));
    const { search } = recallToolsOf(engine, "s");
    const hits = (await search.execute("1", { query: "which musical instrument came up" })).details
      .hits as Array<{ id: string; matchedBy: string[] }>;
    expect(hits[0]).toMatchObject({ id: "m1" });
    expect(hits[0]?.matchedBy).toEqual(["meaning"]);
  });

  it("query-aware assembly recalls the early message by meaning; words alone do not", async () => {
    const messages = conversationWith(FACTS);
    const prompt = "Which instrument is she learning?";
    const assembleWith = async (options: { wordVectors?: string | false }) => {
      const engine = await engines.engine(options);
      await stored(engine, "s", messages);
      await engine.compact({ sessionId: "s", tokenBudget: 3_000, force: true });
      const result = await engine.assemble({ sessionId: "s", messages, tokenBudget: 3_000, prompt });
      return JSON.stringify(result.messages.find(isRecalledContext) ?? null);
    };
    expect(await assembleWith({ wordVectors: BUILTIN_WORD_VECTORS })).toContain(FACTS[0]);
    expect(await assembleWith({})).toContain(FACTS[0]);
    // Words alone find nothing for this prompt: no evidence block at all.
    const wordsAlone = await assembleWith({ wordVectors: false });
    expect(wordsAlone).not.toContain("violin");
    expect(wordsAlone).toBe("null");
  });
});
