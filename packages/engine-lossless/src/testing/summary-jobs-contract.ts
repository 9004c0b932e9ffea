import { createHash } from "node:crypto";
import { expect, it } from "vitest";
import { LosslessStoreConflictError } from "../errors.js";
import type { LosslessStore, NewSummary, PreparedSummary, SummaryJob } from "../store/store.js";
import { type StoreUnderTest, withStore as withFreshStore } from "./store-under-test.js";

/**
 * Contract cases of summary preparation and the spend ledger (`store/summary-jobs.ts`), run by
 * `runLosslessStoreContractSuite` inside its `describe`.
 */
export function runSummaryJobContractCases(createStore: () => Promise<StoreUnderTest>): void {
  const withStore = (body: (subject: StoreUnderTest) => Promise<void>) => withFreshStore(createStore, body);

  it(
    "leases a summary job to one owner at a time, and lets an expired lease be taken over",
    withStore(async ({ store }) => {
      await appendMessages(store, "s1", 4);
      expect(await store.claimSummaryJob("s1", job("k1"), lease("A", 100, 200))).toBe(true);
      expect(await store.claimSummaryJob("s1", job("k1"), lease("B", 150, 300))).toBe(false);
      expect(await store.claimSummaryJob("s1", job("k1"), lease("A", 150, 300))).toBe(false);
      expect(await store.claimSummaryJob("s1", job("k1"), lease("B", 200, 400))).toBe(true);
      expect(await store.listSummaryJobs("s1")).toEqual([
        { ...job("k1"), owner: "B", leaseExpiresAt: 400, attempts: 2 },
      ]);
      expect(await store.claimSummaryJob("never-written", job("k1"), lease("A", 0, 10))).toBe(false);
      expect(await store.listSummaryJobs("never-written")).toEqual([]);
    }),
  );

  it(
    "stores a prepared summary only from the lease holder, and keeps it until the job is deleted",
    withStore(async (subject) => {
      const { store } = subject;
      await appendMessages(store, "s1", 4);
      await store.claimSummaryJob("s1", job("k1", 1, 2), lease("A", 0, 10));
      expect(await store.completeSummaryJob("s1", "k1", "B", prepared("k1", [1, 2]))).toBe(false);
      // Past its expiry, the holder still completes while nobody took the job over.
      expect(await store.completeSummaryJob("s1", "k1", "A", prepared("k1", [1, 2]))).toBe(true);
      expect(await store.claimSummaryJob("s1", job("k1", 1, 2), lease("C", 50, 60))).toBe(false);
      await store.claimSummaryJob("s1", job("k0", 3, 4), lease("A", 0, 10));
      const listed = await store.listSummaryJobs("s1");
      expect(listed.map((entry) => entry.chunkKey)).toEqual(["k1", "k0"]);
      expect(listed[0]).toEqual({ ...job("k1", 1, 2), attempts: 1, prepared: prepared("k1", [1, 2]) });
      const reopened = subject.reopen === undefined ? store : await subject.reopen();
      expect(await reopened.listSummaryJobs("s1")).toEqual(listed);
      expect(await reopened.deleteSummaryJobs("s1", ["k1", "missing"])).toBe(1);
      expect((await reopened.listSummaryJobs("s1")).map((entry) => entry.chunkKey)).toEqual(["k0"]);
    }),
  );

  it(
    "releases a lease so that another owner may claim the job at once",
    withStore(async ({ store }) => {
      await appendMessages(store, "s1", 2);
      await store.claimSummaryJob("s1", job("k1"), lease("A", 0, 1_000));
      await store.releaseSummaryJob("s1", "k1", "B");
      expect(await store.claimSummaryJob("s1", job("k1"), lease("B", 1, 1_000))).toBe(false);
      await store.releaseSummaryJob("s1", "k1", "A");
      expect(await store.claimSummaryJob("s1", job("k1"), lease("B", 1, 1_000))).toBe(true);
      const attempts = async () => (await store.listSummaryJobs("s1"))[0]?.attempts;
      expect(await attempts()).toBe(2);
      // Cancelled work is released without counting its claim; tried work keeps it.
      // Only the owner's release counts: another's leaves the lease and the count alone.
      await store.releaseSummaryJob("s1", "k1", "A", { attempted: false });
      expect(await attempts()).toBe(2);
      await store.releaseSummaryJob("s1", "k1", "B", { attempted: false });
      expect(await attempts()).toBe(1);
      await store.claimSummaryJob("s1", job("k1"), lease("C", 2, 1_000));
      await store.releaseSummaryJob("s1", "k1", "C", { attempted: true });
      expect(await attempts()).toBe(2);
    }),
  );

  it(
    "deletes the jobs a compaction publishes in its own transaction, and none when it conflicts",
    withStore(async ({ store }) => {
      await appendMessages(store, "s1", 4);
      for (const key of ["k1", "k2"]) {
        await store.claimSummaryJob("s1", job(key), lease("A", 0, 10));
        await store.completeSummaryJob("s1", key, "A", prepared(key, [1, 2]));
      }
      const { summary, edit } = prepared("k1", [1, 2]);
      const conflicting = { ...edit, replace: [{ position: 1, ref: { kind: "message" as const, seq: 3 } }] };
      await expect(
        store.applyCompaction("s1", { summaries: [summary], edits: [conflicting], settledJobs: ["k1"] }),
      ).rejects.toBeInstanceOf(LosslessStoreConflictError);
      expect((await store.listSummaryJobs("s1")).map((entry) => entry.chunkKey)).toEqual(["k1", "k2"]);
      await store.applyCompaction("s1", { summaries: [summary], edits: [edit], settledJobs: ["k1"] });
      expect((await store.listSummaryJobs("s1")).map((entry) => entry.chunkKey)).toEqual(["k2"]);
      expect((await store.readContextView("s1")).items[0]?.ref).toEqual({
        kind: "summary",
        summaryId: summary.summaryId,
      });
    }),
  );

  it(
    "reserves summarizer tokens only within the limit over the window, settles them, and records debt",
    withStore(async ({ store }) => {
      await appendMessages(store, "s1", 1);
      const reserve = (at: number, tokens: number, windowStart: number) =>
        store.reserveSummarySpend("s1", { at, tokens, windowStart, limitTokens: 1_000 });
      const first = await reserve(1_000, 600, 0);
      expect(first).toBeTypeOf("string");
      expect(await reserve(1_001, 500, 0)).toBeUndefined();
      await store.settleSummarySpend("s1", first as string, 350);
      expect(await reserve(1_002, 500, 0)).toBeTypeOf("string");
      await store.recordSummaryDebt("s1", { at: 1_003, tokens: 700, chunks: 1 });
      expect(await store.summarySpend("s1", 0)).toEqual({
        spentTokens: 850,
        calls: 2,
        debtTokens: 700,
        debtChunks: 1,
      });
      // A reservation settled to nothing is a call never made.
      const unused = await reserve(1_004, 10, 0);
      await store.settleSummarySpend("s1", unused as string, 0);
      expect((await store.summarySpend("s1", 0)).calls).toBe(2);
      // Older spend leaves the window.
      expect(await reserve(5_000, 1_000, 1_002)).toBeUndefined();
      expect(await reserve(5_000, 1_000, 1_003)).toBeTypeOf("string");
      expect(await store.summarySpend("s1", 1_003)).toEqual({
        spentTokens: 1_000,
        calls: 1,
        debtTokens: 700,
        debtChunks: 1,
      });
      expect(
        await store.reserveSummarySpend("never-written", {
          at: 1,
          tokens: 1,
          windowStart: 0,
          limitTokens: 9,
        }),
      ).toBeUndefined();
      await store.recordSummaryDebt("never-written", { at: 1, tokens: 1, chunks: 1 });
      expect(await store.summarySpend("never-written", 0)).toEqual({
        spentTokens: 0,
        calls: 0,
        debtTokens: 0,
        debtChunks: 0,
      });
    }),
  );

  it(
    "deletes a session's summary jobs and spend with the session",
    withStore(async ({ store }) => {
      await appendMessages(store, "s1", 2);
      await store.claimSummaryJob("s1", job("k1"), lease("A", 0, 10));
      await store.reserveSummarySpend("s1", { at: 1, tokens: 10, windowStart: 0, limitTokens: 100 });
      await store.deleteSession("s1");
      await appendMessages(store, "s1", 2);
      expect(await store.listSummaryJobs("s1")).toEqual([]);
      expect(await store.summarySpend("s1", 0)).toEqual({
        spentTokens: 0,
        calls: 0,
        debtTokens: 0,
        debtChunks: 0,
      });
    }),
  );
}

async function appendMessages(store: LosslessStore, sessionId: string, count: number): Promise<void> {
  const messages = Array.from({ length: count }, (_, index) => {
    const json = JSON.stringify({ content: `message ${index + 1}`, role: "user", timestamp: 1_000 + index });
    const identity = createHash("sha256").update(`${sessionId}\0${index}`).digest("hex");
    return { identity, role: "user", createdAt: 1_000 + index, tokens: 5, json };
  });
  await store.appendMessages(sessionId, messages);
}

function job(chunkKey: string, firstPosition = 1, lastPosition = 2): SummaryJob {
  return { chunkKey, kind: "leaf", firstPosition, lastPosition };
}

function lease(owner: string, now: number, expiresAt: number) {
  return { owner, now, expiresAt };
}

/** A leaf over the messages at `seqs`, which sit at the same positions. */
function prepared(chunkKey: string, seqs: number[]): PreparedSummary {
  const summaryId = `sum_${createHash("sha256").update(chunkKey).digest("hex").slice(0, 16)}`;
  const summary: NewSummary = {
    summaryId,
    kind: "leaf",
    depth: 0,
    content: `summary of ${chunkKey}`,
    tokens: 6,
    sourceRanges: [[seqs[0] ?? 1, seqs.at(-1) ?? 1]],
    sourceCount: seqs.length,
    sourceTokens: 10,
    childIds: [],
    anchors: [],
    earliestAt: 1_000,
    latestAt: 1_001,
    summarizer: "test",
    createdAt: 2_000,
  };
  const replace = seqs.map((seq) => ({ position: seq, ref: { kind: "message" as const, seq } }));
  return { summary, edit: { replace, summaryId, tokens: 6, json: '{"role":"user","content":"summary"}' } };
}
