import { describe, expect, it } from "vitest";
import { createSoftTermRecall } from "../src/embeddings/word-vectors/soft-term-recall.js";
import type { WordVectorTable } from "../src/embeddings/word-vectors/word-vector-table.js";
import { silentLogger, useSoftTermSessions } from "./support/soft-term-sessions.js";

const { tinyTable, storeWith } = useSoftTermSessions();

/** `table` whose lookup of `word` throws the first `failures` times (a vector memory cannot take). */
function failingOn(table: WordVectorTable, word: string, failures: number): WordVectorTable {
  let left = failures;
  class FailingRows extends Map<string, number> {
    override get(key: string): number | undefined {
      if (key === word && left > 0) {
        left -= 1;
        throw new RangeError("WebAssembly.Memory.grow(): Maximum memory size exceeded");
      }
      return super.get(key);
    }
  }
  return { ...table, rows: new FailingRows(table.rows) };
}

describe("the soft term index as sessions grow", () => {
  it("skips a stand-in in more than 100 messages however long the session, at 100 it still counts", async () => {
    // In a session of 12,000 messages, a hundredth is 120: the bar stops at 100 (10,000 messages).
    const notes = (volvos: number) =>
      Array.from({ length: 12_000 }, (_, index) =>
        index < volvos ? `volvo note ${index}` : `plain note ${index}`,
      );
    const carHits = async (volvos: number) => {
      const session = await storeWith([...notes(volvos), "The car is parked outside."]);
      const recall = createSoftTermRecall(await tinyTable(), { logger: silentLogger });
      await recall.warm(session.store, "s");
      return recall.nearestMessages(session.store, "s", "car", { limit: 200 });
    };
    expect((await carHits(101)).map((hit) => hit.key)).toEqual([12_001]);
    expect(await carHits(100)).toHaveLength(101);
  });

  it("adds a page whole or not at all: a failure midway leaves none of its rows to be indexed twice", async () => {
    const session = await storeWith([
      "The car is parked outside.",
      "I bought a used Volvo yesterday.",
      "The car needs washing.",
    ]);
    const recall = createSoftTermRecall(failingOn(await tinyTable(), "volvo", 1), {
      logger: silentLogger,
    });
    // The first message is indexed before the second fails: the search answers nothing.
    expect(await recall.nearestMessages(session.store, "s", "car", { limit: 10 })).toEqual([]);
    const hits = await recall.nearestMessages(session.store, "s", "car", { limit: 10 });
    expect(hits.map((hit) => hit.key).sort()).toEqual([1, 2, 3]);
    expect((await recall.knownHeads?.(session.store, "s", [1, 2, 3]))?.map((head) => head.seq)).toEqual([
      1, 2, 3,
    ]);
  });
});
