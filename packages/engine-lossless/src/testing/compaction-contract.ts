import { expect, it } from "vitest";
import { LosslessStoreConflictError } from "../errors.js";
import type { ContextEdit, NewSummary } from "../store/store.js";
import { appendWords, edit, leafSummary } from "./contract-records.js";
import { type StoreUnderTest, withStore as withFreshStore } from "./store-under-test.js";

/**
 * The store contract for compaction writes, run by `runLosslessStoreContractSuite` for every
 * store: summaries and the view edits that publish them land in one write or not at all, children
 * point at their parent, a summary keeps what it cost, and leaves are found by the messages they
 * cover.
 */
export function runCompactionContractCases(createStore: () => Promise<StoreUnderTest>): void {
  const withStore = (body: (subject: StoreUnderTest) => Promise<void>) => withFreshStore(createStore, body);

  it(
    "replaces adjacent items with one summary item and bumps the version once",
    withStore(async ({ store }) => {
      await appendWords(store, "s1", ["a", "b", "c", "d"]);
      const summary = leafSummary("sum_0000000000000001", [[1, 3]]);
      const { viewVersion } = await store.applyCompaction("s1", {
        summaries: [summary],
        edits: [edit(summary.summaryId, [1, 2, 3])],
      });
      expect(viewVersion).toBe(2);
      const view = await store.readContextView("s1");
      expect(view.items.map((item) => item.ref)).toEqual([
        { kind: "summary", summaryId: summary.summaryId },
        { kind: "message", seq: 4 },
      ]);
      const [item] = view.items;
      expect(item?.json).toBe('{"role":"user","content":"summary"}');
      expect(item?.tokens).toBe(7);
      expect(item?.summary).toMatchObject({
        kind: "leaf",
        depth: 0,
        sourceRanges: [[1, 3]],
        sourceCount: 3,
        summarizer: summary.summarizer,
      });
      expect(item?.createdAt).toBe(summary.latestAt);
      expect(item?.summary?.anchors).toEqual(summary.anchors);
      expect((await store.sessionStats("s1")).summaryCount).toBe(1);
    }),
  );

  it(
    "keeps what a summary cost when its summarizer reported it, and nothing when not",
    withStore(async ({ store }) => {
      await appendWords(store, "s1", ["a", "b", "c", "d"]);
      const paid = { ...leafSummary("sum_00000000000000c1", [[1, 2]]), costUsd: 0.0123 };
      const unpaid = leafSummary("sum_00000000000000c2", [[3, 4]]);
      await store.applyCompaction("s1", {
        summaries: [paid, unpaid],
        edits: [edit(paid.summaryId, [1, 2]), edit(unpaid.summaryId, [3, 4])],
      });
      const [readPaid, readUnpaid] = await store.readSummaries("s1", [paid.summaryId, unpaid.summaryId]);
      expect(readPaid?.costUsd).toBe(0.0123);
      expect(readUnpaid).not.toHaveProperty("costUsd");
    }),
  );

  it(
    "condenses summaries, linking children to their parent, in one write",
    withStore(async ({ store }) => {
      await appendWords(store, "s1", ["a", "b", "c", "d", "e"]);
      const first = leafSummary("sum_00000000000000a1", [[1, 2]]);
      const second = leafSummary("sum_00000000000000a2", [[3, 4]]);
      const root: NewSummary = {
        ...leafSummary("sum_00000000000000b1", [[1, 4]]),
        kind: "condensed",
        depth: 1,
        childIds: [first.summaryId, second.summaryId],
      };
      await store.applyCompaction("s1", {
        summaries: [first, second, root],
        edits: [
          edit(first.summaryId, [1, 2]),
          edit(second.summaryId, [3, 4], 3),
          {
            ...edit(root.summaryId, []),
            replace: [
              { position: 1, ref: { kind: "summary", summaryId: first.summaryId } },
              { position: 3, ref: { kind: "summary", summaryId: second.summaryId } },
            ],
          },
        ],
      });
      const view = await store.readContextView("s1");
      expect(view.version).toBe(2);
      expect(view.items.map((item) => item.ref)).toEqual([
        { kind: "summary", summaryId: root.summaryId },
        { kind: "message", seq: 5 },
      ]);
      const children = await store.readSummaries("s1", [second.summaryId, first.summaryId, "sum_missing"]);
      expect(children.map((child) => [child.summaryId, child.parentId])).toEqual([
        [second.summaryId, root.summaryId],
        [first.summaryId, root.summaryId],
      ]);
      const [stored] = await store.readSummaries("s1", [root.summaryId]);
      expect(stored).toMatchObject({ ...root, parentId: undefined });
    }),
  );

  it(
    "rejects edits that no longer match the view and writes nothing",
    withStore(async ({ store }) => {
      await appendWords(store, "s1", ["a", "b", "c"]);
      const summary = leafSummary("sum_0000000000000c01", [[1, 2]]);
      const attempts: ContextEdit[] = [
        {
          ...edit(summary.summaryId, [1, 2]),
          replace: [{ position: 1, ref: { kind: "message", seq: 2 } }],
        },
        {
          ...edit(summary.summaryId, [1]),
          replace: [
            { position: 1, ref: { kind: "message", seq: 1 } },
            { position: 3, ref: { kind: "message", seq: 3 } },
          ],
        },
        edit("sum_notwritten0000", [1, 2]),
        { ...edit(summary.summaryId, [1]), replace: [] },
      ];
      for (const attempt of attempts) {
        await expect(
          store.applyCompaction("s1", { summaries: [summary], edits: [attempt] }),
        ).rejects.toBeInstanceOf(LosslessStoreConflictError);
      }
      await expect(
        store.applyCompaction("never-written", { summaries: [], edits: [] }),
      ).rejects.toBeInstanceOf(LosslessStoreConflictError);
      const view = await store.readContextView("s1");
      expect(view.version).toBe(1);
      expect(view.items).toHaveLength(3);
      expect(await store.readSummaries("s1", [summary.summaryId])).toEqual([]);
    }),
  );

  it(
    "checks each edit against the view the edits before it left, near together or far apart",
    withStore(async ({ store }) => {
      await appendWords(
        store,
        "s1",
        Array.from({ length: 40 }, (_, index) => `w${index + 1}`),
      );
      const near = leafSummary("sum_0000000000000e01", [[1, 2]]);
      const far = leafSummary("sum_0000000000000e02", [[39, 40]]);
      await store.applyCompaction("s1", {
        summaries: [near, far],
        edits: [edit(near.summaryId, [1, 2]), edit(far.summaryId, [39, 40])],
      });
      const refs = async () => (await store.readContextView("s1")).items.map((item) => item.ref);
      const expected = [
        { kind: "summary", summaryId: near.summaryId },
        ...Array.from({ length: 36 }, (_, index) => ({ kind: "message", seq: index + 3 })),
        { kind: "summary", summaryId: far.summaryId },
      ];
      expect(await refs()).toEqual(expected);
      // The second edit names message 4, which the first one of the same write replaced.
      const first = leafSummary("sum_0000000000000e03", [[3, 4]]);
      const second = leafSummary("sum_0000000000000e04", [[4, 5]]);
      await expect(
        store.applyCompaction("s1", {
          summaries: [first, second],
          edits: [edit(first.summaryId, [3, 4]), edit(second.summaryId, [4, 5])],
        }),
      ).rejects.toBeInstanceOf(LosslessStoreConflictError);
      expect(await refs()).toEqual(expected);
      expect(await store.readSummaries("s1", [first.summaryId, second.summaryId])).toEqual([]);
    }),
  );

  it(
    "finds the leaf summaries that cover a message",
    withStore(async ({ store }) => {
      await appendWords(store, "s1", ["a", "b", "c", "d"]);
      const summary = leafSummary("sum_0000000000000d01", [
        [1, 1],
        [3, 3],
      ]);
      await store.applyCompaction("s1", { summaries: [summary], edits: [] });
      expect((await store.findLeafSummaries("s1", 3)).map((found) => found.summaryId)).toEqual([
        summary.summaryId,
      ]);
      expect(await store.findLeafSummaries("s1", 2)).toEqual([]);
    }),
  );
}
