import { join } from "node:path";
import { type AgentMessage, charEstimateTokenCounter, MemoryLogger } from "@clew/core";
import { afterAll, describe, expect, it } from "vitest";
import { excerptOf } from "../src/assemble/excerpt.js";
import { isRecalledContext } from "../src/assemble/recall-evidence.js";
import { buildNode } from "../src/compaction/build-node.js";
import { PagedSessionIndex, SessionIndexes } from "../src/embeddings/session-indexes.js";
import {
  BUILTIN_MAX_WORDS,
  readShippedTable,
  WordVectorFileError,
  type WordVectorTable,
  writeTableFile,
} from "../src/embeddings/word-vectors/word-vector-table.js";
import type { LosslessStore, StoredMessage } from "../src/store/store.js";
import { fillerText, readOutputThenChat } from "./support/conversations.js";
import { paidSummarizer } from "./support/paid-summarizer.js";
import {
  assembleAfterCompaction,
  SMALL_CHUNKS,
  store as stored,
  TempDatabases,
  turns,
} from "./support/preparation.js";
import { textRecord } from "./support/search-index.js";
import { TempEngines } from "./support/temp-engine.js";
import { useTempStorePath } from "./support/temp-store.js";
import { raw } from "./support/view-items.js";

const engines = new TempEngines();
const databases = new TempDatabases();
afterAll(async () => {
  await engines.cleanup();
  await databases.cleanup();
});
const START = Date.UTC(2025, 3, 1, 9);

/** A table of `words` (one row each) of `dimensions` components, every component 1. */
function tableOf(words: readonly string[], dimensions: number): WordVectorTable {
  return {
    dimensions,
    rows: new Map(words.map((word, row) => [word, row])),
    components: new Int8Array(words.length * dimensions).fill(1),
    scales: new Float32Array(words.length).fill(0.01),
  };
}

/** The rejection of `promise`, which must reject. */
async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error("expected a rejection");
    },
    (error: unknown) => error,
  );
}

describe("the shipped word-vector table's word count", () => {
  it("refuses a well-formed table of one word too few, naming the file and the count", async () => {
    const path = join(await engines.directory(), "short.clewvec");
    const words = Array.from({ length: BUILTIN_MAX_WORDS - 1 }, (_, index) => `w${index}`);
    await writeTableFile(path, { source: "test" }, tableOf(words, 100));
    const error = await rejectionOf(readShippedTable(path));
    expect(error).toBeInstanceOf(WordVectorFileError);
    expect((error as WordVectorFileError).path).toBe(path);
    expect((error as WordVectorFileError).message).toBe(
      `${path}: the shipped word vectors are damaged: the file holds 29999 words of 100 dimensions, ` +
        "not 30000 of 100; reinstall @clew/engine-lossless",
    );
  });

  it("refuses a table whose word list holds more words than its header says", async () => {
    const path = join(await engines.directory(), "split.clewvec");
    // 30,000 rows as the header says, but one word holds a line break: the list reads 30,001.
    const words = Array.from({ length: BUILTIN_MAX_WORDS }, (_, index) =>
      index === 7 ? "a\nb" : `w${index}`,
    );
    await writeTableFile(path, { source: "test" }, tableOf(words, 100));
    const error = await rejectionOf(readShippedTable(path));
    expect(error).toBeInstanceOf(WordVectorFileError);
    expect((error as WordVectorFileError).path).toBe(path);
    expect((error as WordVectorFileError).message).toContain(
      "damaged: the file lists 30001 words where its header says 30000",
    );
  });
});

/** `store` with its message range reads answered a millisecond late. */
function slowReads(store: LosslessStore): LosslessStore {
  return new Proxy(store, {
    get(target, property, receiver) {
      if (property !== "readMessageRange") return Reflect.get(target, property, receiver);
      return async (...args: Parameters<LosslessStore["readMessageRange"]>) => {
        const rows = await target.readMessageRange(...args);
        await new Promise((resolve) => setTimeout(resolve, 1));
        return rows;
      };
    },
  });
}

/** An index that remembers the seqs of the pages it read. */
class RecordingIndex extends PagedSessionIndex<string> {
  readonly seqs: number[] = [];
  protected addPage(page: readonly StoredMessage[]): void {
    this.seqs.push(...page.map((message) => message.seq));
  }
}

/** Session indexes that make `RecordingIndex`es, `maxSessions` of them kept (8 by default). */
function recordingIndexes(maxSessions?: number): SessionIndexes<string, RecordingIndex> {
  return new SessionIndexes<string, RecordingIndex>(
    "model",
    (at, sessionId, model) => new RecordingIndex(at, sessionId, model),
    { logger: new MemoryLogger(), ...(maxSessions === undefined ? {} : { maxSessions }) },
  );
}

describe("session indexes over their size limit", () => {
  const stores = useTempStorePath("clew-lossless-edges-");

  it("catches up in the background a small page at a time, with the event loop free between pages", async () => {
    const store = stores.open();
    const records = Array.from({ length: 300 }, (_, index) => textRecord("long", index + 1, `word${index}`));
    await store.appendMessages("long", records);
    const indexes = recordingIndexes();
    const index = await indexes.indexOf(store, "long");
    const done = index.catchUpInBackground(() => undefined);
    // Promise callbacks alone (a turn's assembly awaiting the store) never run a second page.
    for (let tick = 0; tick < 500; tick++) await Promise.resolve();
    expect(index.seqs).toHaveLength(64);
    await done;
    expect(index.seqs).toEqual(records.map((_, at) => at + 1));
    // Warming reads what was added since, the same way, and settles once it is done.
    await store.appendMessages("long", [textRecord("long", 301, "late")]);
    await indexes.warm(store, "long");
    expect(index.seqs).toHaveLength(301);
  });

  it("closes the least recently used index it drops, and makes a fresh one when it is used again", async () => {
    const store = stores.open();
    for (const session of ["a", "b", "c"])
      await store.appendMessages(session, [textRecord(session, 1, "one"), textRecord(session, 2, "two")]);
    const made: RecordingIndex[] = [];
    const indexes = new SessionIndexes<string, RecordingIndex>(
      "model",
      (at, sessionId, model) => {
        const index = new RecordingIndex(at, sessionId, model);
        made.push(index);
        return index;
      },
      { logger: new MemoryLogger(), maxSessions: 2 },
    );
    const first = await indexes.indexOf(store, "a");
    await first.catchUp();
    const seqsOfA = [...first.seqs];
    expect(seqsOfA).toHaveLength(2);
    const c = await indexes.indexOf(store, "b").then(() => indexes.indexOf(store, "c"));
    expect(made).toHaveLength(3);

    // "a" was dropped: it reads nothing more, even once its session grows.
    await store.appendMessages("a", [textRecord("a", 3, "three")]);
    expect(await first.catchUp()).toBe(true);
    expect(first.seqs).toEqual(seqsOfA);

    // Used again, "a" gets a fresh index over the whole session; "c" is still kept as it was.
    const again = await indexes.indexOf(store, "a");
    expect(again).not.toBe(first);
    await again.catchUp();
    expect(again.seqs).toHaveLength(3);
    expect(again.seqs.slice(0, 2)).toEqual(seqsOfA);
    expect(await indexes.indexOf(store, "c")).toBe(c);
    expect(made).toHaveLength(4);
  });

  it("replaces the index of a session deleted and written again, whether it grew past the old one or not", async () => {
    const store = stores.open();
    const old = Array.from({ length: 5 }, (_, index) => textRecord("s", index + 1, `old${index}`));
    await store.appendMessages("s", old);
    const indexes = recordingIndexes();
    const first = await indexes.current(store, "s", 5);
    expect(first.seqs).toEqual([1, 2, 3, 4, 5]);

    // Fewer messages than the index holds: the store's newest seq tells.
    await store.deleteSession("s");
    await store.appendMessages("s", [textRecord("s", 1, "new0"), textRecord("s", 2, "new1")]);
    const second = await indexes.current(store, "s", 2);
    expect(second).not.toBe(first);
    expect(second.seqs).toEqual([1, 2]);

    // More messages than it holds, and no hint: the message at its newest seq is another one.
    await store.deleteSession("s");
    const grown = Array.from({ length: 7 }, (_, index) => textRecord("s", index + 1, `again${index}`));
    await store.appendMessages("s", grown);
    const third = await indexes.current(store, "s");
    expect(third).not.toBe(second);
    expect(second.stale).toBe(true);
    expect(third.seqs).toEqual([1, 2, 3, 4, 5, 6, 7]);

    // The same session still growing keeps its index and reads only what is new.
    await store.appendMessages("s", [textRecord("s", 8, "later")]);
    expect(await indexes.current(store, "s")).toBe(third);
    expect(third.seqs).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });
});

describe("an index of a session deleted and written again", () => {
  const stores = useTempStorePath("clew-lossless-rewritten-");
  const records = (session: string, count: number, word: string, from = 1) =>
    Array.from({ length: count }, (_, index) => textRecord(session, from + index, `${word}${index}`));

  it("keeps an index ahead of the caller's figure when its newest message is still stored", async () => {
    const store = stores.open();
    await store.appendMessages("s", records("s", 5, "kept"));
    const indexes = recordingIndexes();
    const index = await indexes.current(store, "s");
    // The caller read the view before the index caught up with a fifth message.
    expect(await indexes.current(store, "s", 4)).toBe(index);
    expect(index.caughtUp).toBe(true);
    expect(index.seqs).toEqual([1, 2, 3, 4, 5]);
  });

  it("is not searched while a longer new session is read in the background", async () => {
    // Reads answer a little later, as a store over the network would: with SQLite's, the first
    // background page happens to be read before the search goes on.
    const store = slowReads(stores.open());
    await store.appendMessages("s", records("s", 5, "old"));
    const indexes = recordingIndexes();
    const old = await indexes.current(store, "s");
    await store.deleteSession("s");
    // More than 8 pages: too far behind to read before answering.
    await store.appendMessages("s", records("s", 2_100, "new"));
    const fresh = await indexes.current(store, "s");
    expect(fresh).not.toBe(old);
    expect(old.stale).toBe(true);
    expect(fresh.caughtUp).toBe(false);
    await indexes.warm(store, "s");
    expect(fresh.seqs).toHaveLength(2_100);
  });

  it("is made again by a warm-up, and holds nothing once its session is deleted", async () => {
    const store = stores.open();
    await store.appendMessages("s", records("s", 5, "old"));
    const indexes = recordingIndexes();
    const old = await indexes.current(store, "s");
    await store.deleteSession("s");
    await store.appendMessages("s", records("s", 3, "new"));
    await indexes.warm(store, "s");
    const warmed = await indexes.indexOf(store, "s");
    expect(warmed).not.toBe(old);
    expect(warmed.seqs).toEqual([1, 2, 3]);
    await store.deleteSession("s");
    const emptied = await indexes.current(store, "s");
    expect(emptied.seqs).toEqual([]);
    expect(emptied.caughtUp).toBe(true);
  });

  it("answers with a live index of the session when another session's search dropped it meanwhile", async () => {
    const store = stores.open();
    await store.appendMessages("a", records("a", 3, "alpha"));
    await store.appendMessages("b", records("b", 2, "beta"));
    const indexes = recordingIndexes(1);
    const [a] = await Promise.all([indexes.current(store, "a"), indexes.indexOf(store, "b")]);
    expect(a.live).toBe(true);
    expect(a.caughtUp).toBe(true);
    expect(a.seqs).toEqual([1, 2, 3]);
  });
});

describe("excerpts by distinct query words", () => {
  it("prefers the window holding two different query words over one repeating a single word", () => {
    const repeated = Array.from({ length: 12 }, () => "relay").join(" ");
    const varied = "the staging box listens on its port behind the gateway";
    const text = `${fillerText(2_000, 1)} ${repeated} ${fillerText(3_000, 2)} ${varied} ${fillerText(3_000, 3)}`;
    const excerpt = excerptOf(text, ["relay", "port", "gateway"], 300);
    expect(excerpt.text).toContain(varied);
    expect(excerpt.text).not.toContain("relay");
    expect(text.slice(excerpt.from, excerpt.to)).toBe(excerpt.text);
  });

  it("narrows a CJK excerpt (a token per character) until its evidence block fits a small room", async () => {
    // Chinese as written: no spaces, full-width punctuation around the words asked for.
    const NEEDLE = "，staging：relay，port：7431。";
    const cjk = (count: number, seed: number) =>
      Array.from({ length: count }, (_, index) =>
        String.fromCharCode(0x4e00 + ((index * 37 + seed) % 2_000)),
      ).join("");
    const output = `${cjk(3_000, 1)}${NEEDLE}${cjk(3_000, 2)}`;
    const messages = readOutputThenChat(output, START);
    const roomTokens = 300;
    const engine = await engines.engine({ recallMaxTokens: roomTokens });
    const prompt = "Which port does the staging relay use?";
    const result = await assembleAfterCompaction(engine, messages, 3_000, prompt);
    expect(result.estimatedTokens).toBeLessThanOrEqual(3_000);
    const block = result.messages.find(isRecalledContext);
    expect(block).toBeDefined();
    expect(charEstimateTokenCounter.countMessage(block as AgentMessage)).toBeLessThanOrEqual(roomTokens);
    // The body read back is the tool result's head line, then its output.
    const body = `(result of read call_1)\n${output}`;
    // The excerpt's section runs to the next message's header, or to the end of the block.
    const excerpt = (block as { content: string }).content.match(
      new RegExp(
        `\\(excerpt: characters (\\d+)–(\\d+) of ${body.length}; recall_read m3 reads it all\\)\\n(.*?)(?:\\n\\n\\[m\\d+ |$)`,
        "su",
      ),
    );
    expect(excerpt).not.toBeNull();
    const [, from, to, text = ""] = excerpt as RegExpMatchArray;
    expect(body.slice(Number(from), Number(to))).toBe(text);
    // An excerpt takes at most 40 % of the block's room (`WHOLE_SHARE`): shrinking by the character
    // estimate alone would leave about three times that in CJK.
    expect(charEstimateTokenCounter.countText(text)).toBeLessThanOrEqual(roomTokens * 0.4);
    expect(text).toContain("7431");
    expect(text.match(/[\u4e00-\u9fff]/gu)?.length ?? 0).toBeGreaterThan(20);
  });
});

describe("the cost of a paid but unusable summary", () => {
  it("records the tokens and dollars of an empty answer the summarizer reported, though the fallback wrote the summary", async () => {
    const emptyButPaid = paidSummarizer("model:test/empty-but-paid", "   ", 0.002);
    const { engine } = databases.open(await databases.path(), {
      ...SMALL_CHUNKS,
      summarizer: emptyButPaid,
      prepareSummaries: false,
    });
    await stored(engine, "s", turns(40));
    const result = await engine.compact({ sessionId: "s", tokenBudget: 3_000, force: true });
    expect(result).toMatchObject({ ok: true, compacted: true });
    const calls = emptyButPaid.calls;
    expect(calls).toBeGreaterThan(1);

    const pass = (await engine.inspect("s")).lastCompaction;
    expect(pass).toMatchObject({ level: "fallback", summarizer: emptyButPaid.id });
    expect(pass?.writtenBy).not.toContain(emptyButPaid.id);
    expect(pass?.costUsd).toBeCloseTo(0.002 * calls, 10);

    const spend = await engine.spendReport("s");
    expect(spend.lifetime).toMatchObject({ calls, spentTokens: 550 * calls, debtChunks: 0 });
  });
});

describe("a node whose room cannot hold a cut summary", () => {
  it("is not asked of the summarizer, so no paid answer is thrown away for want of room", async () => {
    const settings = {
      counter: charEstimateTokenCounter,
      summarizerTimeoutMs: 5_000,
      logger: new MemoryLogger(),
      now: () => START,
    };
    let built = 0;
    let paidThenDropped = 0;
    for (let maxTokens = 10; maxTokens <= 200; maxTokens++) {
      const paid = paidSummarizer(
        "model:test/paid",
        "a summary longer than any room it is given. ".repeat(40),
        0.01,
      );
      const node = await buildNode(
        { ...settings, summarizer: paid },
        { sessionId: "s", items: [raw(1), raw(2)], maxTokens },
      );
      if (node !== undefined) {
        built += 1;
        expect(node.summary.costUsd).toBe(0.01);
        expect(node.item.tokens).toBeLessThanOrEqual(maxTokens);
      } else if (paid.calls > 0) paidThenDropped += 1;
    }
    expect(built).toBeGreaterThan(50);
    expect(paidThenDropped).toBe(0);
  });
});
