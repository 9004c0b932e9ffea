import { beforeEach, describe, expect, it } from "vitest";
import type { SqliteLosslessStore } from "../src/store/sqlite/sqlite-store.js";
import type { SearchHit } from "../src/store/store.js";
import { textRecord } from "./support/search-index.js";
import { useTempStorePath } from "./support/temp-store.js";

const temp = useTempStorePath("clew-lossless-bounded-");
let store: SqliteLosslessStore;

beforeEach(() => {
  store = temp.open();
});

/** Appends `texts` to the session as its next messages (identities unique per session and seq). */
async function append(sessionId: string, firstSeq: number, texts: readonly string[]): Promise<void> {
  await store.appendMessages(
    sessionId,
    texts.map((text, index) => textRecord(sessionId, firstSeq + index, text)),
  );
}

/** Each hit's message text, read back by seq: a hit with a wrong seq shows the wrong text. */
async function textsOf(sessionId: string, hits: readonly SearchHit<number>[]): Promise<string[]> {
  const messages = await store.readMessages(
    sessionId,
    hits.map((hit) => hit.key),
  );
  const bySeq = new Map(messages.map((message) => [message.seq, JSON.parse(message.json).content]));
  return hits.map((hit) => bySeq.get(hit.key) ?? "(missing)");
}

describe("message search bounded by maxRanked (sqlite)", () => {
  it("ranks each term over its newest matches, the rarest in full, scoring as the whole query does", async () => {
    // 600 messages: "alpha" in a quarter, "beta" in another quarter (both under the 200 of a
    // common term), "gamma" once, in the oldest message.
    const texts = Array.from({ length: 600 }, (_, index) =>
      index === 0 ? "gamma alpha line" : ["alpha line", "beta line", "filler line", "more filler"][index % 4],
    );
    await append("s1", 1, texts as string[]);
    const terms = ["alpha", "beta", "gamma"];
    const bounded = await store.searchMessages("s1", terms, 100, { maxRanked: 41 });
    const everything = await store.searchMessages("s1", terms, 1_000);
    expect(everything).toHaveLength(300);
    // gamma's single match, then 20 newest of alpha and 20 newest of beta.
    expect(bounded).toHaveLength(41);
    expect(bounded[0]?.key).toBe(1);
    const others = bounded.slice(1).map((hit) => hit.key);
    expect(Math.min(...others)).toBeGreaterThan(600 - 4 * 20);
    // A message whose terms were all ranked scores what ranking everything gives it.
    const exact = new Map(everything.map((hit) => [hit.key, hit.score]));
    for (const hit of bounded.slice(1)) expect(hit.score).toBeCloseTo(exact.get(hit.key) as number, 9);
  });

  it("keeps to the session asked for, with the right seqs, when sessions' messages interleave", async () => {
    // Chunks of ten, then single messages alternating: first a few runs, then too many to keep.
    let seqs = { s1: 1, s2: 1 };
    for (let round = 0; round < 2; round++) {
      for (let chunk = 0; chunk < 12; chunk++) {
        for (const sessionId of ["s1", "s2"] as const) {
          const size = round === 0 ? 10 : 1;
          const first = seqs[sessionId];
          await append(
            sessionId,
            first,
            Array.from({ length: size }, (_, index) => `osprey ${sessionId} number ${first + index}`),
          );
          seqs = { ...seqs, [sessionId]: first + size };
        }
      }
      if (round === 1) {
        for (let index = 0; index < 70; index++) {
          for (const sessionId of ["s1", "s2"] as const) {
            await append(sessionId, seqs[sessionId], [`osprey ${sessionId} number ${seqs[sessionId]}`]);
            seqs = { ...seqs, [sessionId]: seqs[sessionId] + 1 };
          }
        }
      }
      const hits = await store.searchMessages("s1", ["osprey", "number"], 50, { maxRanked: 30 });
      expect(hits.length).toBeGreaterThan(0);
      const texts = await textsOf("s1", hits);
      expect(texts).toEqual(hits.map((hit) => `osprey s1 number ${hit.key}`));
    }
  });

  it("reads a session afresh after it was deleted and written again", async () => {
    await append(
      "s1",
      1,
      Array.from({ length: 50 }, (_, index) => `heron first life ${index + 1}`),
    );
    expect(await store.searchMessages("s1", ["heron"], 5, { maxRanked: 10 })).not.toEqual([]);
    await store.deleteSession("s1");
    // Written again, the session may get the same row ids for some seqs and not for others.
    await append(
      "s1",
      1,
      Array.from({ length: 10 }, (_, index) => `heron second life ${index + 1}`),
    );
    await append(
      "s2",
      1,
      Array.from({ length: 10 }, () => "heron elsewhere"),
    );
    await append(
      "s1",
      11,
      Array.from({ length: 40 }, (_, index) => `heron second life ${index + 11}`),
    );
    expect(await store.searchMessages("s1", ["elsewhere"], 40, { maxRanked: 10 })).toEqual([]);
    const hits = await store.searchMessages("s1", ["heron", "life"], 40, { maxRanked: 10 });
    expect(hits.length).toBeGreaterThan(0);
    expect(await textsOf("s1", hits)).toEqual(hits.map((hit) => `heron second life ${hit.key}`));
  });

  it("finds a term stored after an earlier search counted it, and every message of a small store", async () => {
    await append("s1", 1, ["the first note"]);
    expect(await store.searchMessages("s1", ["zebra"], 5, { maxRanked: 10 })).toEqual([]);
    await append("s1", 2, ["a zebra crossed"]);
    const hits = await store.searchMessages("s1", ["zebra"], 5, { maxRanked: 10 });
    expect(hits.map((hit) => hit.key)).toEqual([2]);
    await append("s1", 3, ["another zebra"]);
    const both = await store.searchMessages("s1", ["zebra"], 5, { maxRanked: 10 });
    expect(both.map((hit) => hit.key).sort()).toEqual([2, 3]);
  });

  it("scores a phrase of several words by its IDF, and finds its oldest match", async () => {
    const texts = Array.from({ length: 300 }, (_, index) =>
      index === 1 ? "see src/engine/fit-budget.ts now" : `src line ${index} of budget.ts in engine`,
    );
    await append("s1", 1, texts);
    const hits = await store.searchMessages("s1", ["src/engine/fit-budget.ts", "budget"], 10, {
      maxRanked: 20,
    });
    expect(hits[0]?.key).toBe(2);
    // One match among 300 messages: FTS5's IDF, log((N − n + 0.5) / (n + 0.5)).
    expect(hits[0]?.score).toBeCloseTo(Math.log((300 - 1 + 0.5) / (1 + 0.5)), 9);
  });

  it("passes over the messages the caller skips instead of spending its share on them", async () => {
    await append(
      "s1",
      1,
      Array.from({ length: 400 }, (_, index) => `routine entry ${index + 1}`),
    );
    const skip = (seq: number) => seq > 390;
    const bounded = await store.searchMessages("s1", ["routine", "entry"], 50, { maxRanked: 10, skip });
    // Both terms are in every message: each ranks its newest five that are not skipped.
    expect(bounded.map((hit) => hit.key).sort((left, right) => left - right)).toEqual([
      386, 387, 388, 389, 390,
    ]);
    const unbounded = await store.searchMessages("s1", ["routine"], 500, { skip });
    expect(unbounded).toHaveLength(390);
  });
});
