import { describe, expect, it } from "vitest";
import { LosslessStoreError } from "../errors.js";
import type { NewSummary } from "../store/store.js";
import { runCompactionContractCases } from "./compaction-contract.js";
import {
  appendWords,
  edit,
  keys,
  leafSummary,
  message,
  pick,
  textMessage,
  toolResultMessage,
} from "./contract-records.js";
import { runIngestContractCases } from "./ingest-contract.js";
import { runRecorderContractCases } from "./recorder-contract.js";
import { runSearchContractCases } from "./search-contract.js";
import { type StoreUnderTest, withStore as withFreshStore } from "./store-under-test.js";
import { runSummaryJobContractCases } from "./summary-jobs-contract.js";

export type { StoreUnderTest };

export interface LosslessStoreContractSuiteOptions {
  /** A fresh, empty store for each case. */
  createStore: () => Promise<StoreUnderTest>;
}

/**
 * The behaviour every `LosslessStore` must show (see the contract in `store/store.ts`). Call it
 * from a Vitest test file:
 *
 *   runLosslessStoreContractSuite("sqlite", { createStore: async () => ({ store, cleanup }) });
 */
export function runLosslessStoreContractSuite(
  name: string,
  options: LosslessStoreContractSuiteOptions,
): void {
  const withStore = (body: (subject: StoreUnderTest) => Promise<void>) =>
    withFreshStore(options.createStore, body);

  describe(`lossless store contract: ${name}`, () => {
    it(
      "appends new messages in order, with seqs from 1 and one view item each",
      withStore(async ({ store }) => {
        const result = await store.appendMessages("s1", [message("s1", "a"), message("s1", "b")]);
        expect(result.inserted.map((entry) => entry.seq)).toEqual([1, 2]);
        expect(result.inserted.map((entry) => entry.index)).toEqual([0, 1]);
        expect(result.viewVersion).toBe(1);
        const view = await store.readContextView("s1");
        expect(view.version).toBe(1);
        expect(view.items.map((item) => item.ref)).toEqual([
          { kind: "message", seq: 1 },
          { kind: "message", seq: 2 },
        ]);
        expect(view.items.map((item) => item.json)).toEqual([
          message("s1", "a").json,
          message("s1", "b").json,
        ]);
        expect(view.items.map((item) => item.tokens)).toEqual([message("s1", "a").tokens, 2]);
        expect(view.items.map((item) => item.createdAt)).toEqual([1_000, 1_001]);
      }),
    );

    it(
      "stores a message once, whichever call brings it again",
      withStore(async ({ store }) => {
        await store.appendMessages("s1", [message("s1", "a")]);
        const again = await store.appendMessages("s1", [
          message("s1", "a"),
          message("s1", "b"),
          message("s1", "b"),
        ]);
        expect(again.inserted).toEqual([{ index: 1, seq: 2, position: 2 }]);
        const nothingNew = await store.appendMessages("s1", [message("s1", "b")]);
        expect(nothingNew).toEqual({ inserted: [], viewVersion: 2, sessionNotStored: false });
        expect((await store.sessionStats("s1")).messageCount).toBe(2);
      }),
    );

    it(
      "appends only to a session with stored messages when asked to, and otherwise writes nothing",
      withStore(async ({ store }) => {
        const onlyStored = { onlyToStoredSession: true };
        // An append of nothing may leave the session known to the store, but nothing is stored.
        await store.appendMessages("s1", []);
        expect(await store.appendMessages("s1", [message("s1", "a")], onlyStored)).toEqual({
          inserted: [],
          viewVersion: 0,
          sessionNotStored: true,
        });
        expect(await store.viewVersion("s1")).toBe(0);
        expect((await store.sessionStats("s1")).messageCount).toBe(0);

        await store.appendMessages("s1", [message("s1", "a")]);
        const next = await store.appendMessages("s1", [message("s1", "a"), message("s1", "b")], onlyStored);
        expect(next).toEqual({
          inserted: [{ index: 1, seq: 2, position: 2 }],
          viewVersion: 2,
          sessionNotStored: false,
        });

        await store.deleteSession("s1");
        const afterDelete = await store.appendMessages("s1", [message("s1", "c")], onlyStored);
        expect(afterDelete.sessionNotStored).toBe(true);
        expect(await store.readContextView("s1")).toEqual({ version: 0, items: [] });
      }),
    );

    it(
      "keeps sessions apart and answers an unknown session with nothing",
      withStore(async ({ store }) => {
        await store.appendMessages("s1", [message("s1", "a")]);
        const other = await store.appendMessages("s2", [message("s2", "a")]);
        expect(other.inserted[0]?.seq).toBe(1);
        expect(await store.readContextView("missing")).toEqual({ version: 0, items: [] });
        expect(await store.viewVersion("missing")).toBe(0);
        expect(await store.sessionStats("missing")).toEqual({
          messageCount: 0,
          summaryCount: 0,
          viewVersion: 0,
        });
        expect(await store.readMessages("missing", [1])).toEqual([]);
        expect(await store.searchMessages("missing", ["alpha"], 5)).toEqual([]);
      }),
    );

    it(
      "reads messages by seq, by range and by time, a page at a time",
      withStore(async ({ store }) => {
        await appendWords(store, "s1", ["a", "b", "c", "d", "e", "f"]);
        const seqs = (messages: { seq: number }[]) => messages.map((stored) => stored.seq);
        expect(seqs(await store.readMessages("s1", [5, 2, 99]))).toEqual([2, 5]);
        const [read] = await store.readMessages("s1", [3]);
        expect(read).toEqual({ seq: 3, ...pick(message("s1", "c")) });
        const ranges: Array<[number, number]> = [
          [1, 2],
          [4, 6],
        ];
        expect(seqs(await store.readMessageRange("s1", { ranges, limit: 3 }))).toEqual([1, 2, 4]);
        expect(seqs(await store.readMessageRange("s1", { ranges, afterSeq: 4, limit: 3 }))).toEqual([5, 6]);
        expect(
          seqs(await store.readMessageRange("s1", { fromTime: 1_002, toTime: 1_003, limit: 10 })),
        ).toEqual([3, 4]);
        expect(await store.readMessageRange("s1", { ranges: [], limit: 10 })).toEqual([]);
      }),
    );

    it(
      "reads by seq what is stored now: each seq once, and a re-written session's new messages",
      withStore(async ({ store }) => {
        await appendWords(store, "s1", ["a", "b", "c"]);
        const words = async (seqs: number[]) =>
          (await store.readMessages("s1", seqs)).map((stored) => JSON.parse(stored.json).content);
        expect(await words([3, 1, 3, 1])).toEqual(["a", "c"]);
        // Read again (a store may keep rows it read): the same seqs now name other messages.
        await store.deleteSession("s1");
        await appendWords(store, "s1", ["x", "y"]);
        expect(await words([1, 2, 3])).toEqual(["x", "y"]);
      }),
    );

    it(
      "searches message text by words, codes and paths, best first, within the session",
      withStore(async ({ store }) => {
        await store.appendMessages("s1", [
          textMessage("s1", "the deploy key for staging is NDL-7K2M9QXA", 1),
          textMessage("s1", "we edited src/engine/fit-budget.ts and the deploy notes", 2),
          toolResultMessage("s1", "build output\nerror ECONNREFUSED on port 5432", 3),
        ]);
        await store.appendMessages("s2", [textMessage("s2", "NDL-7K2M9QXA in another session", 1)]);
        expect(keys(await store.searchMessages("s1", ["NDL-7K2M9QXA"], 10))).toEqual([1]);
        expect(keys(await store.searchMessages("s1", ["src/engine/fit-budget.ts"], 10))).toEqual([2]);
        expect(keys(await store.searchMessages("s1", ["ECONNREFUSED"], 10))).toEqual([3]);
        const ranked = await store.searchMessages("s1", ["deploy", "staging"], 10);
        expect(keys(ranked)).toEqual([1, 2]);
        expect(ranked[0]?.score).toBeGreaterThan(ranked[1]?.score ?? 0);
        expect(await store.searchMessages("s1", ["--", '"'], 10)).toEqual([]);
        expect(await store.searchMessages("s1", ["NEAR(", "*", "col:"], 10)).toEqual([]);
      }),
    );

    it(
      "searches summary text and anchors separately",
      withStore(async ({ store }) => {
        await appendWords(store, "s1", ["a", "b"]);
        const summary: NewSummary = {
          ...leafSummary("sum_0000000000000e01", [[1, 2]]),
          content: "We chose the blue-green rollout.",
          anchors: [{ value: "deploy/rollout.yaml", messages: [2] }],
        };
        await store.applyCompaction("s1", { summaries: [summary], edits: [] });
        const id = summary.summaryId;
        expect(keys(await store.searchSummaries("s1", ["rollout"], "content", 5))).toEqual([id]);
        expect(keys(await store.searchSummaries("s1", ["deploy/rollout.yaml"], "anchors", 5))).toEqual([id]);
        expect(await store.searchSummaries("s1", ["blue-green"], "anchors", 5)).toEqual([]);
        expect(await store.searchSummaries("s2", ["rollout"], "content", 5)).toEqual([]);
      }),
    );

    it(
      "keeps everything across a reopen",
      withStore(async (subject) => {
        if (subject.reopen === undefined) return;
        await appendWords(subject.store, "s1", ["a", "b"]);
        const summary = leafSummary("sum_0000000000000f01", [[1, 1]]);
        await subject.store.applyCompaction("s1", {
          summaries: [summary],
          edits: [edit(summary.summaryId, [1])],
        });
        const before = await subject.store.readContextView("s1");
        const reopened = await subject.reopen();
        subject.store = reopened;
        expect(await reopened.readContextView("s1")).toEqual(before);
        expect(keys(await reopened.searchMessages("s1", ["b"], 5))).toEqual([2]);
        const again = await reopened.appendMessages("s1", [message("s1", "b"), message("s1", "c")]);
        expect(again.inserted.map((entry) => entry.seq)).toEqual([3]);
      }),
    );

    it(
      "can be closed twice and refuses calls after closing",
      withStore(async ({ store }) => {
        await store.close();
        await store.close();
        await expect(store.readContextView("s1")).rejects.toBeInstanceOf(LosslessStoreError);
        await expect(store.appendMessages("s1", [message("s1", "a")])).rejects.toBeInstanceOf(
          LosslessStoreError,
        );
      }),
    );

    runCompactionContractCases(options.createStore);
    runRecorderContractCases(options.createStore);
    runSummaryJobContractCases(options.createStore);
    runSearchContractCases(options.createStore);
    runIngestContractCases(options.createStore);
  });
}
