import {
  charEstimateTokenCounter,
  MEMORY_FLUSH_PROMPT_START,
  MemoryLogger,
  SILENT_REPLY_TOKEN,
} from "@clew/core";
import { beforeEach, describe, expect, it } from "vitest";
import { recallEvidence } from "../src/assemble/recall-evidence.js";
import type { SemanticRecall } from "../src/embeddings/semantic-recall.js";
import { createSoftTermRecall } from "../src/embeddings/word-vectors/soft-term-recall.js";
import type { WordVectorTable } from "../src/embeddings/word-vectors/word-vector-table.js";
import type { SqliteLosslessStore } from "../src/store/sqlite/sqlite-store.js";
import type { LosslessStore } from "../src/store/store.js";
import { textRecord } from "./support/search-index.js";
import { useTempStorePath } from "./support/temp-store.js";

const temp = useTempStorePath("clew-lossless-evidence-");
let store: SqliteLosslessStore;

beforeEach(() => {
  store = temp.open();
});

/** `store` with every call of `method` recorded: the seqs it read, or the terms it searched for. */
function recordingReads<Argument extends number | string>(
  target: LosslessStore,
  calls: Argument[][],
  method: "readMessages" | "readMessageHeads" | "searchMessages" = "readMessages",
): LosslessStore {
  return new Proxy(target, {
    get(object, property, receiver) {
      if (property === method) {
        return (...args: unknown[]) => {
          calls.push([...(args[1] as Argument[])]);
          return (object[method] as (...values: unknown[]) => unknown)(...args);
        };
      }
      const value = Reflect.get(object, property, receiver);
      return typeof value === "function" ? value.bind(object) : value;
    },
  });
}

/** An assistant reply stored at `index`, its text `text`. */
function replyRecord(sessionId: string, index: number, text: string) {
  const json = JSON.stringify({
    content: [{ text, type: "text" }],
    role: "assistant",
    timestamp: 1_000 + index,
  });
  return { ...textRecord(sessionId, index, `reply ${text}`), role: "assistant", json };
}

describe("evidence without housekeeping", () => {
  it("chooses again without a memory flush the full-text search ranked first, so its room goes to the next hit", async () => {
    const flush = `${MEMORY_FLUSH_PROMPT_START}: kestrel nest, kestrel nest; else ${SILENT_REPLY_TOKEN}.`;
    await store.appendMessages("s1", [
      textRecord(
        "s1",
        1,
        "The kestrel nested by the old quarry, we think, after a long watch from the path by the gate.",
      ),
      replyRecord("s1", 2, "Noted, the quarry."),
      ...Array.from({ length: 20 }, (_, index) => textRecord("s1", index + 3, `filler note ${index}`)),
      textRecord("s1", 23, flush),
      replyRecord("s1", 24, SILENT_REPLY_TOKEN),
    ]);
    const reads: number[][] = [];
    const evidence = await recallEvidence({
      store: recordingReads(store, reads),
      sessionId: "s1",
      query: "where did the kestrel nest?",
      inContext: () => false,
      // Room for one exchange.
      roomTokens: 130,
      counter: charEstimateTokenCounter,
    });
    expect(String(evidence?.message.content)).toContain("old quarry");
    expect(String(evidence?.message.content)).not.toContain(MEMORY_FLUSH_PROMPT_START);
    // The first choice read the flush; the second did not.
    expect(reads).toHaveLength(2);
    expect(reads[0]).toContain(23);
    expect(reads[1]).not.toContain(23);
  });
});

describe("evidence reads", () => {
  it("reads whole only the messages it shows, however many match", async () => {
    // 60 long messages mention the kestrel; a 400-token block holds a few of them.
    const records = Array.from({ length: 60 }, (_, index) =>
      textRecord("s1", index + 1, `kestrel sighting ${index + 1}: ${"a long field note ".repeat(40)}`),
    );
    await store.appendMessages(
      "s1",
      records.map((record) => ({ ...record, tokens: 200 })),
    );
    const reads: number[][] = [];
    const evidence = await recallEvidence({
      store: recordingReads(store, reads),
      sessionId: "s1",
      query: "where was the kestrel seen?",
      inContext: (seq) => seq > 55,
      roomTokens: 700,
      counter: charEstimateTokenCounter,
    });
    expect(evidence).toBeDefined();
    expect(evidence?.seqs.length).toBeGreaterThan(0);
    expect(evidence?.seqs.every((seq) => seq <= 55)).toBe(true);
    expect(reads).toEqual([expect.arrayContaining(evidence?.seqs ?? [])]);
    expect(reads.flat().length).toBeLessThanOrEqual(3);
    for (const seq of evidence?.seqs ?? []) {
      expect(String(evidence?.message.content)).toContain(`kestrel sighting ${seq}:`);
    }
  });

  /** Exchanges of a question and its answer; every second answer (seq ≡ 0 mod 4) mentions the kestrel. */
  async function storeExchanges(): Promise<void> {
    const records = Array.from({ length: 80 }, (_, index) => {
      const seq = index + 1;
      const answer = seq % 2 === 0;
      const text = answer && seq % 4 === 0 ? `a kestrel over field ${seq}` : `field note ${seq}`;
      const record = textRecord("s1", seq, text);
      return answer
        ? {
            ...record,
            role: "assistant",
            json: JSON.stringify({ ...JSON.parse(record.json), role: "assistant" }),
          }
        : record;
    });
    await store.appendMessages("s1", records);
  }

  /** The evidence for a question about the kestrel, recording the heads it reads. */
  function recallKestrel(reads: number[][], roomTokens: number, meaning?: SemanticRecall) {
    return recallEvidence({
      store: recordingReads(store, reads, "readMessageHeads"),
      sessionId: "s1",
      query: "where was the kestrel?",
      inContext: () => false,
      roomTokens,
      counter: charEstimateTokenCounter,
      ...(meaning === undefined ? {} : { meaning }),
    });
  }

  it("reads the heads of the hits and of the neighbours their roles point to, no others", async () => {
    await storeExchanges();
    const reads: number[][] = [];
    const evidence = await recallKestrel(reads, 2_000);
    expect(evidence?.seqs).toEqual(expect.arrayContaining([79, 80]));
    const read = reads.flat();
    // The hits (answers, seq ≡ 0 mod 4) and their questions just before them; never the question after.
    expect(read.filter((seq) => seq % 4 === 0).length).toBe(20);
    expect(read.filter((seq) => seq % 4 === 3).length).toBe(20);
    expect(read.filter((seq) => seq % 4 === 1 || seq % 4 === 2)).toEqual([]);
    expect(new Set(read).size).toBe(read.length);
  });

  const table: WordVectorTable = {
    dimensions: 4,
    rows: new Map([["kestrel", 0]]),
    components: new Int8Array(4).fill(1),
    scales: new Float32Array(1).fill(0.01),
  };

  /** `meaning` with the seqs each `knownHeads` call asks for recorded in `asked`. */
  function recordingHeads(meaning: SemanticRecall, asked: number[][]): SemanticRecall {
    return {
      ...meaning,
      knownHeads: async (target, sessionId, seqs) => {
        asked.push([...seqs]);
        return (await meaning.knownHeads?.(target, sessionId, seqs)) ?? [];
      },
    };
  }

  it("with soft term hits, asks for the neighbours' heads of the hits chosen only, and the index has them all", async () => {
    await storeExchanges();
    const storeReads: number[][] = [];
    const asked: number[][] = [];
    const meaning = recordingHeads(createSoftTermRecall(table, { logger: new MemoryLogger() }), asked);
    const evidence = await recallKestrel(storeReads, 160, meaning);
    const shown = evidence?.seqs ?? [];
    expect(shown.filter((seq) => seq % 4 === 0).length).toBeGreaterThan(0);
    const hitsShown = shown.filter((seq) => seq % 4 === 0).length;
    const read = asked.flat();
    expect(read.filter((seq) => seq % 4 === 0).length).toBe(20);
    const neighboursRead = read.filter((seq) => seq % 4 !== 0);
    expect(neighboursRead.length).toBeGreaterThan(0);
    expect(neighboursRead.length).toBeLessThanOrEqual(hitsShown);
    // Every head came from the index: the store read none of the session's 80 messages' heads
    // (the word index asks once for a head far past them: is it far behind?).
    expect(storeReads.flat().filter((seq) => seq <= 80)).toEqual([]);
    for (const seq of shown) expect(String(evidence?.message.content)).toContain(`m${seq} `);
  });

  it("with soft term hits and the store's newest seq given, asks the store nothing before its search", async () => {
    await storeExchanges();
    const soft = createSoftTermRecall(table, { logger: new MemoryLogger() });
    const calls: string[] = [];
    const counting = new Proxy(store as LosslessStore, {
      get(object, property, receiver) {
        const value = Reflect.get(object, property, receiver);
        if (typeof value !== "function") return value;
        return (...args: unknown[]) => {
          calls.push(String(property));
          return value.apply(object, args);
        };
      },
    });
    const recall = (storedUpTo?: number) =>
      recallEvidence({
        store: counting,
        sessionId: "s1",
        query: "where was the kestrel?",
        inContext: () => false,
        roomTokens: 160,
        counter: charEstimateTokenCounter,
        meaning: soft,
        ...(storedUpTo === undefined ? {} : { storedUpTo }),
      });
    const first = await recall(80);
    calls.length = 0;
    // The index holds message 80, the store's newest: no probe, no page, no head is read.
    expect((await recall(80))?.message).toEqual(first?.message);
    expect(calls.filter((name) => name === "readMessageRange" || name === "readMessageHeads")).toEqual([]);
    // Not told, it probes the store first.
    calls.length = 0;
    await recall();
    expect(calls).toContain("readMessageHeads");
  });

  it("asks the index of meaning for the prompt's 6 rarest words, in its search and in what it leaves", async () => {
    await storeExchanges();
    const soft = createSoftTermRecall(table, { logger: new MemoryLogger() });
    const asked: Array<number | undefined> = [];
    const recording: SemanticRecall = {
      ...soft,
      nearestMessages: (target, sessionId, query, options) => {
        asked.push(options.queryWords);
        return soft.nearestMessages(target, sessionId, query, options);
      },
      uncoveredWords: (target, sessionId, query, words, queryWords) => {
        asked.push(queryWords);
        return (
          soft.uncoveredWords?.(target, sessionId, query, words, queryWords) ?? Promise.resolve([...words])
        );
      },
    };
    // Room for more than the soft term hits: the words they leave are asked for too.
    expect(await recallKestrel([], 4_000, recording)).toBeDefined();
    expect(asked).toEqual([6, 6]);
  });

  it("reads from the store the heads the index of meaning does not hold", async () => {
    await storeExchanges();
    const soft = createSoftTermRecall(table, { logger: new MemoryLogger() });
    const withIndex = await recallKestrel([], 160, soft);
    expect(withIndex).toBeDefined();
    // An index holding only some heads (the rest not indexed yet), and one holding none: the
    // others are read from the store, and the block is the same.
    for (const holds of [(seq: number) => seq % 8 === 0, () => false]) {
      const storeReads: number[][] = [];
      const partial: SemanticRecall = {
        ...soft,
        knownHeads: async (target, sessionId, seqs) =>
          ((await soft.knownHeads?.(target, sessionId, seqs)) ?? []).filter((head) => holds(head.seq)),
      };
      const withStore = await recallKestrel(storeReads, 160, partial);
      expect(withStore?.message).toEqual(withIndex?.message);
      const hitsRead = storeReads.flat().filter((seq) => seq <= 80 && seq % 4 === 0);
      expect(hitsRead).toHaveLength(holds(8) ? 10 : 20);
      expect(hitsRead.some(holds)).toBe(false);
    }
  });

  it("with soft term hits, searches the full-text index, when they leave room, for the words they cannot match", async () => {
    await storeExchanges();
    // A long output holding a code past what the soft term index reads of a message.
    const output = `build log: ${"step passed ".repeat(6_000)}then ENOSPC on the kestrel disk`;
    await store.appendMessages("s1", [{ ...textRecord("s1", 81, output), tokens: output.length / 4 }]);
    const meaning = createSoftTermRecall(table, { logger: new MemoryLogger() });
    const searched: string[][] = [];
    const searching = recordingReads(store, searched, "searchMessages");
    const recall = (query: string, roomTokens: number) =>
      recallEvidence({
        store: searching,
        sessionId: "s1",
        query,
        inContext: () => false,
        roomTokens,
        counter: charEstimateTokenCounter,
        meaning,
      });
    // A small room: the newest soft term hits fill it.
    expect((await recall("where was the kestrel?", 160))?.seqs.length).toBeGreaterThan(0);
    expect(searched).toEqual([]);
    // Room for every hit and more, but the soft term index matches every word: nothing to add.
    expect((await recall("where was the kestrel?", 4_000))?.seqs).toEqual(expect.arrayContaining([4, 80]));
    expect(searched).toEqual([]);
    // A code it never read and a path it splits: the full-text index is searched for those alone.
    const evidence = await recall("the kestrel, ENOSPC and field/80.md", 4_000);
    expect(searched).toEqual([["ENOSPC", "field/80.md"]]);
    expect(evidence?.seqs).toEqual(expect.arrayContaining([80, 81]));
  });
});
