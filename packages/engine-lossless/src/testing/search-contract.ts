import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { LosslessStore, NewStoredMessage } from "../store/store.js";
import { type StoreUnderTest, withStore as withFreshStore } from "./store-under-test.js";

/**
 * The store contract for search freshness, run by `runLosslessStoreContractSuite` for every
 * store: a store may build its full-text index when it likes, but a search always finds every
 * stored message, including one stored just before it; a search bounded by `maxRanked` may leave
 * out older matches of frequent terms, never a rare term's; one with `indexAtMost` may leave out
 * messages not indexed yet while more than that many wait (in the whole store).
 */
export function runSearchContractCases(createStore: () => Promise<StoreUnderTest>): void {
  const withStore = (body: (subject: StoreUnderTest) => Promise<void>) => withFreshStore(createStore, body);

  describe("search freshness", () => {
    it(
      "finds a message appended just before the search",
      withStore(async ({ store }) => {
        await store.appendMessages("s1", [note("s1", 1, "the kestrel report is ready")]);
        expect(await seqsFor(store, "s1", "kestrel")).toEqual([1]);
        await store.appendMessages("s1", [note("s1", 2, "a second kestrel sighting near PORT-4471")]);
        expect(await seqsFor(store, "s1", "kestrel")).toEqual([1, 2]);
        expect(await seqsFor(store, "s1", "PORT-4471")).toEqual([2]);
      }),
    );

    it(
      "finds every message of a large append, first and last alike",
      withStore(async ({ store }) => {
        const count = 1_200;
        const notes = Array.from({ length: count }, (_, index) =>
          note("s1", index + 1, `routine line ${index + 1} marker${index + 1}`),
        );
        await store.appendMessages("s1", notes);
        expect(await seqsFor(store, "s1", "marker1")).toEqual([1]);
        expect(await seqsFor(store, "s1", `marker${count}`)).toEqual([count]);
        expect(await store.searchMessages("s1", ["routine"], count + 1)).toHaveLength(count);
      }),
    );

    it(
      "with indexAtMost, finds what a turn just stored, and an import's messages once a plain search ran",
      withStore(async ({ store }) => {
        const keys = (hits: Array<{ key: number }>) => hits.map((hit) => hit.key);
        const bounded = { maxRanked: 200, indexAtMost: 50 };
        await store.appendMessages("s1", [note("s1", 1, "the osprey nest is empty")]);
        expect(keys(await store.searchMessages("s1", ["osprey"], 10, bounded))).toEqual([1]);
        const imported = Array.from({ length: 200 }, (_, index) =>
          note("s1", index + 2, `tally${index} today`),
        );
        await store.appendMessages("s1", imported);
        // A store may answer from what it has indexed so far.
        expect([[], [122]]).toContainEqual(keys(await store.searchMessages("s1", ["tally120"], 10, bounded)));
        expect(keys(await store.searchMessages("s1", ["tally120"], 10))).toEqual([122]);
        expect(keys(await store.searchMessages("s1", ["tally120"], 10, bounded))).toEqual([122]);
      }),
    );

    it(
      "leaves out the seqs `skip` names and still answers up to `limit` hits, bounded or not",
      withStore(async ({ store }) => {
        const notes = Array.from({ length: 12 }, (_, index) =>
          note("s1", index + 1, `heron count ${index + 1}`),
        );
        await store.appendMessages("s1", notes);
        const skip = (seq: number) => seq % 2 === 0;
        for (const options of [{ skip }, { skip, maxRanked: 200 }]) {
          const hits = await store.searchMessages("s1", ["heron"], 4, options);
          expect(hits).toHaveLength(4);
          expect(hits.every((hit) => hit.key % 2 === 1)).toBe(true);
        }
      }),
    );

    it(
      "finds messages stored right before the store was closed and opened again",
      withStore(async (subject) => {
        if (subject.reopen === undefined) return;
        await subject.store.appendMessages("s1", [note("s1", 1, "the osprey left at dawn")]);
        subject.store = await subject.reopen();
        expect(await seqsFor(subject.store, "s1", "osprey")).toEqual([1]);
        await subject.store.appendMessages("s1", [note("s1", 2, "the osprey came back")]);
        expect(await seqsFor(subject.store, "s1", "osprey")).toEqual([1, 2]);
      }),
    );

    it(
      "with maxRanked, still finds a rare term's oldest match among many newer matches",
      withStore(async ({ store }) => {
        const count = 400;
        const notes = Array.from({ length: count }, (_, index) =>
          note(
            "s1",
            index + 1,
            index === 4 ? "routine check of the kestrel feeder" : `routine line ${index}`,
          ),
        );
        await store.appendMessages("s1", notes);
        await store.appendMessages("s2", [note("s2", 1, "a kestrel in the other session")]);
        const bounded = await store.searchMessages("s1", ["kestrel", "routine"], 5, { maxRanked: 20 });
        expect(bounded[0]?.key).toBe(5);
        expect(bounded.length).toBeLessThanOrEqual(5);
        expect(bounded.every((hit) => hit.key >= 1 && hit.key <= count)).toBe(true);
        // Few matches in all: the same hits, in the same order, as a search that ranks everything.
        const few = await store.searchMessages("s1", ["kestrel", "feeder"], 10, { maxRanked: 20 });
        const all = await store.searchMessages("s1", ["kestrel", "feeder"], 10);
        expect(few.map((hit) => hit.key)).toEqual(all.map((hit) => hit.key));
      }),
    );

    it(
      "reads message heads: what readMessages reads, without the JSON",
      withStore(async ({ store }) => {
        await store.appendMessages("s1", [
          note("s1", 1, "first"),
          note("s1", 2, "second"),
          note("s1", 3, "third"),
        ]);
        await store.appendMessages("s2", [note("s2", 1, "other")]);
        const heads = await store.readMessageHeads("s1", [3, 1, 9]);
        const whole = await store.readMessages("s1", [3, 1, 9]);
        expect(heads).toEqual(
          whole.map(({ seq, role, createdAt, tokens }) => ({ seq, role, createdAt, tokens })),
        );
        expect(heads.map((head) => head.seq)).toEqual([1, 3]);
        expect(await store.readMessageHeads("missing", [1])).toEqual([]);
        expect(await store.readMessageHeads("s1", [])).toEqual([]);
      }),
    );

    it(
      "settles deferred work without changing what is stored, as often as it is called",
      withStore(async ({ store }) => {
        await store.appendMessages("s1", [note("s1", 1, "the heron waited"), note("s1", 2, "heron gone")]);
        const before = await store.readMessageRange("s1", { limit: 10 });
        await store.settle();
        await store.settle();
        expect(await store.readMessageRange("s1", { limit: 10 })).toEqual(before);
        expect(await seqsFor(store, "s1", "heron")).toEqual([1, 2]);
        expect((await store.sessionStats("s1")).messageCount).toBe(2);
      }),
    );
  });
}

async function seqsFor(store: LosslessStore, sessionId: string, term: string): Promise<number[]> {
  const hits = await store.searchMessages(sessionId, [term], 50);
  return hits.map((hit) => hit.key).sort((left, right) => left - right);
}

function note(sessionId: string, index: number, text: string): NewStoredMessage {
  return {
    identity: createHash("sha256").update(`${sessionId}\0search\0${index}`).digest("hex"),
    role: "user",
    createdAt: 1_000 + index,
    tokens: 8,
    json: JSON.stringify({ content: text, role: "user", timestamp: 1_000 + index }),
  };
}
