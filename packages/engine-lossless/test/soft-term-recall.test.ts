import { describe, expect, it } from "vitest";
import { createSoftTermRecall } from "../src/embeddings/word-vectors/soft-term-recall.js";
import { loadWordVectorTable } from "../src/embeddings/word-vectors/word-vector-table.js";
import { silentLogger as silent, useSoftTermSessions } from "./support/soft-term-sessions.js";

const { tinyTable, storeWith } = useSoftTermSessions();

describe("soft term matching over word vectors", () => {
  it("matches a query word through the session's words nearest to it, the word itself first", async () => {
    const { store } = await storeWith([
      "I bought a used Volvo yesterday.",
      "The car is parked outside.",
      "I have been cooking tagine every Sunday.",
    ]);
    const recall = createSoftTermRecall(await tinyTable(), { logger: silent });
    expect(recall.ranksWords).toBe(true);
    const hits = await recall.nearestMessages(store, "s", "Where is the car?", { limit: 5 });
    expect(hits.map((hit) => hit.key)).toEqual([2, 1]);
    expect(hits[0]?.score).toBeGreaterThan(hits[1]?.score ?? Number.POSITIVE_INFINITY);
  });

  it("matches words the vectors do not know exactly, and function words not at all", async () => {
    const { store } = await storeWith([
      "Rotated the deploy token NDL-7K2M9QXA today.",
      "Nothing else happened.",
    ]);
    const recall = createSoftTermRecall(await tinyTable(), { logger: silent });
    const code = await recall.nearestMessages(store, "s", "where is NDL-7K2M9QXA?", { limit: 5 });
    expect(code.map((hit) => hit.key)).toEqual([1]);
    expect(await recall.nearestMessages(store, "s", "what is the", { limit: 5 })).toEqual([]);
  });

  it("indexes a possessive as its word, as queries are read", async () => {
    const { store } = await storeWith(["Caroline's Volvo broke down.", "Nothing else happened."]);
    const recall = createSoftTermRecall(await tinyTable(), { logger: silent });
    const hits = await recall.nearestMessages(store, "s", "Where is Caroline?", { limit: 5 });
    expect(hits.map((hit) => hit.key)).toEqual([1]);
  });

  it("counts a message it cannot read as empty, and indexes every other message once", async () => {
    const { store } = await storeWith(
      ["The car is parked outside.", "The car broke down.", "I drive a car to work."],
      new Set([2]),
    );
    const recall = createSoftTermRecall(await tinyTable(), { logger: silent });
    for (let search = 0; search < 3; search++) {
      const hits = await recall.nearestMessages(store, "s", "car", { limit: 10 });
      expect(hits.map((hit) => hit.key).sort()).toEqual([1, 3]);
    }
  });

  it("scores a word's newest 256 occurrences, and searches a query's 12 rarest words, or as many as asked", async () => {
    const notes = Array.from({ length: 300 }, (_, index) => `kestrel sighting ${index}`);
    const { store } = await storeWith([...notes, "The osprey nested."]);
    const recall = createSoftTermRecall(await tinyTable(), { logger: silent });
    const kestrels = await recall.nearestMessages(store, "s", "kestrel", { limit: 400 });
    expect(kestrels).toHaveLength(256);
    expect(Math.min(...kestrels.map((hit) => hit.key))).toBe(45);
    // Words the table does not know rank alike: the first twelve are searched, or six when asked.
    const unknown = (count: number) => Array.from({ length: count }, (_, index) => `zq${index}x`).join(" ");
    const ospreys = async (before: number, queryWords?: number) =>
      (
        await recall.nearestMessages(store, "s", `${unknown(before)} osprey`, {
          limit: 5,
          ...(queryWords === undefined ? {} : { queryWords }),
        })
      ).map((hit) => hit.key);
    expect(await ospreys(12)).toEqual([]);
    expect(await ospreys(11)).toEqual([301]);
    expect(await ospreys(6, 6)).toEqual([]);
    expect(await ospreys(5, 6)).toEqual([301]);
    // Known words are more frequent than any word the table lacks: those are dropped first.
    const known = "novel reading book halfway drive bought dinner cooking tagine concert cello lessons";
    const osprey = await recall.nearestMessages(store, "s", `${known} osprey`, { limit: 5 });
    expect(osprey.map((hit) => hit.key)).toEqual([301]);
  });

  it("leaves to the full-text index the words its search does not cover fully", async () => {
    const notes = Array.from({ length: 300 }, (_, index) => `novel sighting ${index}`);
    // Past the first 64,000 characters, which are all this index reads of a message.
    const longOutput = `build log ${"step passed ".repeat(6_000)} then the cello`;
    const { store } = await storeWith([...notes, "I bought a used Volvo.", longOutput, "Uber rides"]);
    const recall = createSoftTermRecall(await tinyTable(), { logger: silent });
    // Asked as evidence asks: right after the search for the same query.
    const uncovered = async (query: string, words: string[]) => {
      await recall.nearestMessages(store, "s", query, { limit: 10 });
      return (await recall.uncoveredWords?.(store, "s", query, words)) ?? ["(none)"];
    };
    // Covered: a word with a vector that the search scores, and a function word.
    expect(await uncovered("the volvo", ["the", "Volvo"])).toEqual([]);
    expect(
      await uncovered("novel, volvo, cello, src/a.ts, uber, osprey", [
        "novel",
        "Volvo",
        "cello",
        "src/a.ts",
        "uber",
        "osprey",
      ]),
    ).toEqual([
      // ("novel", in 300 messages, is covered: the full-text search ranks a word's newest matches
      // too, fewer of them than the 256 scored here)
      // only past the first 64,000 characters of the one message holding it
      "cello",
      // a path, which this index would split into words
      "src/a.ts",
      // no vector: its other forms are found by the full-text index's stemming alone
      "uber",
      // in no message
      "osprey",
    ]);
    // Past the twelve rarest words of the query (or as many as asked), a word is not searched: the
    // full-text index is.
    const rare = (count: number) => Array.from({ length: count }, (_, index) => `zq${index}x`).join(" ");
    expect(await uncovered(`${rare(12)} volvo`, ["volvo"])).toEqual(["volvo"]);
    expect(await uncovered(`${rare(11)} volvo`, ["volvo"])).toEqual([]);
    const asked = async (query: string) => {
      await recall.nearestMessages(store, "s", query, { limit: 10, queryWords: 6 });
      return recall.uncoveredWords?.(store, "s", query, ["volvo"], 6);
    };
    expect(await asked(`${rare(6)} volvo`)).toEqual(["volvo"]);
    expect(await asked(`${rare(5)} volvo`)).toEqual([]);
    // The same query asked for twelve words just before: the count asked for decides, not the last search.
    expect(await uncovered(`${rare(11)} volvo`, ["volvo"])).toEqual([]);
    expect(await asked(`${rare(11)} volvo`)).toEqual(["volvo"]);
  });

  it("ranks first a message holding every word of a query of four words or more", async () => {
    // A long message holding all four words, each scored low for its length, and short messages
    // matching one word each (two of them by meaning only).
    const padding = "plain filler words ".repeat(400);
    const { store } = await storeWith([
      `${padding} novel car dinner concert ${padding}`,
      "The novel was long.",
      "We drove the volvo.",
      "Tagine for dinner.",
      "The cello sounded lovely.",
    ]);
    const recall = createSoftTermRecall(await tinyTable(), { logger: silent });
    const keys = async (query: string) =>
      (await recall.nearestMessages(store, "s", query, { limit: 10 })).map((hit) => hit.key);
    const complete = await keys("novel car dinner concert");
    expect(complete[0]).toBe(1);
    // Three words: complete matches are common at that length; the order is the score's.
    const short = await keys("novel car dinner");
    expect(short.indexOf(1)).toBeGreaterThan(0);
  });

  /**
   * A long message holding `words` (its length buries it: a short message matching one word
   * scores higher) among 30 short messages that match nothing, which keep the average length low.
   */
  const buried = (words: string) => {
    const padding = "plain filler words ".repeat(400);
    const fillers = Array.from({ length: 30 }, (_, index) => `plain note ${index}`);
    return [`${padding} ${words} ${padding}`, ...fillers];
  };

  it("counts a word as held only when the message holds the word itself, not a stand-in", async () => {
    // Three of the four words, and "volvo" standing in for "car".
    const { store } = await storeWith([...buried("novel volvo dinner concert"), "We drove the car."]);
    const recall = createSoftTermRecall(await tinyTable(), { logger: silent });
    const hits = await recall.nearestMessages(store, "s", "novel car dinner concert", { limit: 40 });
    expect(hits[0]?.key).toBe(32);
    expect(hits.map((hit) => hit.key)).toContain(1);
  });

  it("finds a complete match older than a common word's newest 256 occurrences", async () => {
    const notes = Array.from({ length: 300 }, (_, index) => `novel note ${index}`);
    const { store } = await storeWith([...buried("novel car dinner concert"), ...notes, "We drove the car."]);
    const recall = createSoftTermRecall(await tinyTable(), { logger: silent });
    const hits = await recall.nearestMessages(store, "s", "novel car dinner concert", { limit: 10 });
    expect(hits[0]?.key).toBe(1);
  });

  it("leaves out of a complete match a word only messages in the caller's context hold", async () => {
    const { store } = await storeWith([
      ...buried("novel car dinner concert"),
      "We drove the car.",
      "Cello lessons.",
    ]);
    const recall = createSoftTermRecall(await tinyTable(), { logger: silent });
    const hits = await recall.nearestMessages(store, "s", "novel car dinner concert cello", {
      limit: 10,
      skip: (seq) => seq === 33,
    });
    expect(hits[0]?.key).toBe(1);
  });

  it("leaves every word to the full-text index while it is far behind the store", async () => {
    const filler = Array.from({ length: 2_999 }, (_, index) => `plain note ${index}`);
    const { store } = await storeWith([...filler, "I bought a used Volvo."]);
    const recall = createSoftTermRecall(await tinyTable(), { logger: silent });
    const uncovered = async () => {
      await recall.nearestMessages(store, "s", "volvo", { limit: 10 });
      return recall.uncoveredWords?.(store, "s", "volvo", ["volvo"]);
    };
    // Asked before any search, nothing is known to be covered either.
    expect(await recall.uncoveredWords?.(store, "s", "volvo", ["volvo"])).toEqual(["volvo"]);
    expect(await uncovered()).toEqual(["volvo"]);
    await recall.warm(store, "s");
    expect(await uncovered()).toEqual([]);
  });

  it("finds the same neighbours and hits with the JavaScript scan as with WebAssembly", async () => {
    const texts = [
      "I bought a used Volvo yesterday.",
      "The car is parked outside.",
      "I am halfway through Piranesi.",
      "Dinner was tagine again.",
      "Cello lessons on Thursday.",
    ];
    const { store } = await storeWith(texts);
    const table = await tinyTable();
    const search = (vectorScan: "wasm" | "js") =>
      createSoftTermRecall(table, { logger: silent, vectorScan }).nearestMessages(
        store,
        "s",
        "which novel, which car, what dinner, what concert",
        { limit: 10 },
      );
    const byWasm = await search("wasm");
    expect(byWasm.length).toBeGreaterThanOrEqual(4);
    const byJs = await search("js");
    expect(byJs.map((hit) => hit.key)).toEqual(byWasm.map((hit) => hit.key));
    for (const [index, hit] of byJs.entries()) expect(hit.score).toBeCloseTo(byWasm[index]?.score ?? 0, 5);
  });

  it("counts toward a word's 256 occurrences only the messages the caller may be shown", async () => {
    const notes = Array.from({ length: 300 }, (_, index) => `kestrel sighting ${index}`);
    const { store } = await storeWith(notes);
    const recall = createSoftTermRecall(await tinyTable(), { logger: silent });
    // The newest 200 are in the caller's context: the 100 before them are all reached, though the
    // newest 256 occurrences end at seq 45.
    const hits = await recall.nearestMessages(store, "s", "kestrel", {
      limit: 400,
      skip: (seq) => seq > 100,
    });
    expect(hits.map((hit) => hit.key).sort((left, right) => left - right)).toEqual(
      Array.from({ length: 100 }, (_, index) => index + 1),
    );
  });

  it("stops indexing in the background once its indexes are cleared", async () => {
    const filler = Array.from({ length: 2_999 }, (_, index) => `plain note ${index}`);
    const session = await storeWith([...filler, "The car is parked outside."]);
    const recall = createSoftTermRecall(await tinyTable(), { logger: silent });
    await recall.nearestMessages(session.store, "s", "car", { limit: 5 });
    recall.clear();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(session.rowsRead()).toBeLessThan(3_000);
  });

  it("keeps a neighbour only from minSimilarity up", async () => {
    // cos(car, bought) is about 0.91 in the tiny table.
    const { store } = await storeWith(["I bought bread."]);
    const table = await tinyTable();
    const loose = createSoftTermRecall(table, { logger: silent });
    const strict = createSoftTermRecall(table, { logger: silent, minSimilarity: 0.95 });
    expect(await loose.nearestMessages(store, "s", "car", { limit: 5 })).toHaveLength(1);
    expect(await strict.nearestMessages(store, "s", "car", { limit: 5 })).toEqual([]);
  });

  it("catches up with later messages, reading each stored message once, and finds them by meaning", async () => {
    const session = await storeWith(["I have been cooking tagine every Sunday."]);
    const recall = createSoftTermRecall(await tinyTable(), { logger: silent });
    expect(await recall.nearestMessages(session.store, "s", "car", { limit: 5 })).toEqual([]);
    await session.add(["I bought a used Volvo yesterday.", "Dinner was late."]);
    const hits = await recall.nearestMessages(session.store, "s", "car", { limit: 5 });
    expect(hits.map((hit) => hit.key)).toEqual([2]);
    await recall.nearestMessages(session.store, "s", "dinner", { limit: 5 });
    // Each message once, plus the index's newest again on each later read (1 + 3 + 1): that one
    // tells whether the session was deleted and written anew since.
    expect(session.rowsRead()).toBe(5);
  });

  it("asks the store nothing before a search when the caller knows the index holds its newest message", async () => {
    const session = await storeWith(["I have been cooking tagine every Sunday.", "I bought a used Volvo."]);
    const recall = createSoftTermRecall(await tinyTable(), { logger: silent });
    const car = async (storedUpTo?: number) =>
      (
        await recall.nearestMessages(session.store, "s", "car", {
          limit: 5,
          ...(storedUpTo === undefined ? {} : { storedUpTo }),
        })
      ).map((hit) => hit.key);
    expect(await car(2)).toEqual([2]);
    const calls = session.storeCalls();
    expect(await car(2)).toEqual([2]);
    expect(session.storeCalls()).toBe(calls);
    // Not told, it probes the store; told of a newer message, it reads it.
    expect(await car()).toEqual([2]);
    expect(session.storeCalls()).toBeGreaterThan(calls);
    await session.add(["The car is parked outside."]);
    expect(await car(3)).toEqual([3, 2]);
    // 2 + 1 + 2: the probe's page and the last one start again at the index's newest message.
    expect(session.rowsRead()).toBe(5);
  });

  it("answers a search at once when the index is far behind, and indexes the session in the background", async () => {
    const filler = Array.from({ length: 2_999 }, (_, index) => `plain note ${index}`);
    const session = await storeWith([...filler, "The car is parked outside."]);
    const recall = createSoftTermRecall(await tinyTable(), { logger: silent });
    // 3,000 messages are 12 pages: more than the 8 a search would read before it answers, so it
    // answers at once and the session is indexed in the background.
    expect(await recall.nearestMessages(session.store, "s", "car", { limit: 5 })).toEqual([]);
    // No page was read for the answer; the background has read one small page at most.
    expect(session.rowsRead()).toBeLessThanOrEqual(64);
    await recall.warm(session.store, "s");
    expect(
      (await recall.nearestMessages(session.store, "s", "car", { limit: 5 })).map((hit) => hit.key),
    ).toEqual([3_000]);
    // Each message once, and the index's newest again for each later page: 46 in the background,
    // 1 for the last search.
    expect(session.rowsRead()).toBe(3_047);
  });

  it("catches the index up before a search when it is at most 8 pages behind, and not when further", async () => {
    const table = await tinyTable();
    /** The first search for "car" in a fresh session of `notes` plain messages and then the car. */
    const firstSearch = async (notes: number) => {
      const texts = Array.from({ length: notes }, (_, index) => `plain note ${index}`);
      const session = await storeWith([...texts, "The car is parked outside."]);
      const recall = createSoftTermRecall(table, { logger: silent });
      return (await recall.nearestMessages(session.store, "s", "car", { limit: 5 })).map((hit) => hit.key);
    };
    expect(await firstSearch(2_047)).toEqual([2_048]);
    expect(await firstSearch(2_048)).toEqual([]);
  });

  it("catches a search up while a background run goes on, when the index is near", async () => {
    const session = await storeWith(["I bought a used Volvo yesterday."]);
    const recall = createSoftTermRecall(await tinyTable(), { logger: silent });
    await recall.warm(session.store, "s");
    const notes = Array.from({ length: 300 }, (_, index) => `plain note ${index}`);
    await session.add([...notes, "The car is parked outside."]);
    // Maintenance warms the index in the background; the next turn's search comes meanwhile.
    const warming = recall.warm(session.store, "s");
    const hits = await recall.nearestMessages(session.store, "s", "car", { limit: 5 });
    expect(hits.map((hit) => hit.key)).toContain(302);
    await warming;
  });

  it("leaves out the seqs the caller skips", async () => {
    const { store } = await storeWith(["I bought a used Volvo yesterday.", "The car is parked outside."]);
    const recall = createSoftTermRecall(await tinyTable(), { logger: silent });
    const hits = await recall.nearestMessages(store, "s", "car", { limit: 5, skip: (seq) => seq === 2 });
    expect(hits.map((hit) => hit.key)).toEqual([1]);
  });

  it("skips a stand-in word most messages use, never the query's own word", async () => {
    const texts = Array.from({ length: 100 }, (_, index) =>
      index < 60 ? `volvo note ${index}` : `plain note ${index}`,
    );
    const { store } = await storeWith([...texts, "The car is parked outside."]);
    const recall = createSoftTermRecall(await tinyTable(), { logger: silent });
    const car = await recall.nearestMessages(store, "s", "car", { limit: 10 });
    expect(car.map((hit) => hit.key)).toEqual([101]);
    const volvo = await recall.nearestMessages(store, "s", "volvo", { limit: 100 });
    expect(volvo).toHaveLength(61); // the 60 exact matches, and "car" as a rare stand-in
  });

  it("turns a table that failed to load into no hits", async () => {
    const { store } = await storeWith(["The car is parked outside."]);
    const warnings: string[] = [];
    const recall = createSoftTermRecall(loadWordVectorTable("/nonexistent/vectors.txt", 10), {
      logger: { ...silent, warn: (message) => warnings.push(message) },
    });
    expect(await recall.nearestMessages(store, "s", "car", { limit: 5 })).toEqual([]);
    await recall.warm(store, "s");
    expect(warnings).toEqual(["lossless: search by meaning is unavailable; recall uses words alone"]);
  });

  it("ranks equal scores newest first, and a search leaves nothing behind for the next", async () => {
    // Five equal matches of "car" (same text, same length), and other words.
    const texts = ["The car is parked.", "plain note", "The car is parked.", "The car is parked.", "a note"];
    const { store } = await storeWith([...texts, "The car is parked.", "The car is parked."]);
    const recall = createSoftTermRecall(await tinyTable(), { logger: silent });
    const first = await recall.nearestMessages(store, "s", "car", { limit: 3 });
    expect(first.map((hit) => hit.key)).toEqual([7, 6, 4]);
    // A search for other words in between, then the same one: the same hits and scores.
    await recall.nearestMessages(store, "s", "plain note", { limit: 3 });
    expect(await recall.nearestMessages(store, "s", "car", { limit: 3 })).toEqual(first);
    expect(await recall.nearestMessages(store, "s", "car", { limit: 0 })).toEqual([]);
  });

  it("returns each message once, and none without a score, whatever minSimilarity allows", async () => {
    // "novel" and "concert" are orthogonal to "car" and "dinner" in the tiny table: similarity 0.
    const { store } = await storeWith(["novel concert", "The car is parked outside.", "dinner tonight"]);
    const recall = createSoftTermRecall(await tinyTable(), { logger: silent, minSimilarity: -1 });
    const hits = await recall.nearestMessages(store, "s", "car dinner", { limit: 10 });
    expect(hits.map((hit) => hit.key).sort()).toEqual([2, 3]);
    expect(hits.every((hit) => hit.score > 0)).toBe(true);
  });
});
