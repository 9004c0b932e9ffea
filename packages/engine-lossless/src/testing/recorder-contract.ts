import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import type {
  LosslessStore,
  NewAssemblyRecord,
  NewCompactionPass,
  NewStoredMessage,
  NewSummary,
} from "../store/store.js";
import { type StoreUnderTest, withStore as withFreshStore } from "./store-under-test.js";

/**
 * The store contract for the flight recorder, session reports and upkeep (`store/records.ts`),
 * run by `runLosslessStoreContractSuite` for every store.
 */
export function runRecorderContractCases(createStore: () => Promise<StoreUnderTest>): void {
  const withStore = (body: (store: LosslessStore) => Promise<void>) =>
    withFreshStore(createStore, (subject) => body(subject.store));

  describe("flight recorder, reports and upkeep", () => {
    it(
      "reports a session's messages, summaries and view, and zeros for an unknown one",
      withStore(async (store) => {
        expect(await store.sessionReport("missing")).toMatchObject({ messageCount: 0, viewVersion: 0 });
        const messages = ["alpha", "béta", "gamma", "delta"].map((text, index) => note("s1", text, index));
        await store.appendMessages("s1", messages);
        const leaf = summary("sum_00000000000000r1", "leaf", 0, [[1, 2]], []);
        const root = summary("sum_00000000000000r2", "condensed", 1, [[1, 3]], [leaf.summaryId]);
        await store.applyCompaction("s1", {
          summaries: [leaf, root],
          edits: [replaceMessages(leaf.summaryId, [1, 2], 1), replaceRoot(root.summaryId, leaf.summaryId)],
        });
        const report = await store.sessionReport("s1");
        expect(report).toEqual({
          messageCount: 4,
          rawJsonBytes: messages.reduce((sum, message) => sum + Buffer.byteLength(message.json), 0),
          summaryCount: 2,
          summariesByKind: { leaf: 1, condensed: 1 },
          deepestSummaryDepth: 1,
          summaryTokens: 9,
          summarySourceTokens: root.sourceTokens,
          viewItems: 2,
          viewTokens: 9 + 10,
          viewVersion: 2,
          compactionPasses: 0,
          tokensRemovedTotal: 0,
        });
      }),
    );

    it(
      "keeps compaction passes, lists them newest first and counts those that shrank the view",
      withStore(async (store) => {
        await store.appendMessages("s1", [note("s1", "a", 0)]);
        await store.appendMessages("s2", [note("s2", "a", 0)]);
        await store.recordCompactionPass("s1", pass("pass_0000000000000001", 1_000, 500, "compacted"));
        await store.recordCompactionPass("s1", pass("pass_0000000000000002", 500, 500, "unchanged"));
        await store.recordCompactionPass("s2", pass("pass_0000000000000003", 900, 300, "short"));
        await store.recordCompactionPass("s1", pass("pass_0000000000000001", 1_000, 10, "compacted"));
        await store.recordCompactionPass("never-written", pass("pass_0000000000000009", 9, 1, "compacted"));
        const ids = (passes: Array<{ passId: string }>) => passes.map((entry) => entry.passId);
        expect(ids(await store.listCompactionPasses({ sessionId: "s1", limit: 10 }))).toEqual([
          "pass_0000000000000002",
          "pass_0000000000000001",
        ]);
        expect(ids(await store.listCompactionPasses({ limit: 2 }))).toEqual([
          "pass_0000000000000003",
          "pass_0000000000000002",
        ]);
        expect(await store.readCompactionPass("pass_0000000000000001")).toEqual({
          ...pass("pass_0000000000000001", 1_000, 500, "compacted"),
          sessionId: "s1",
        });
        expect(await store.readCompactionPass("pass_0000000000000009")).toBeUndefined();
        expect(await store.sessionReport("s1")).toMatchObject({
          compactionPasses: 1,
          tokensRemovedTotal: 500,
        });
        expect(await store.sessionReport("s2")).toMatchObject({
          compactionPasses: 1,
          tokensRemovedTotal: 600,
        });
      }),
    );

    it(
      "keeps only the newest assembly records of each session",
      withStore(async (store) => {
        await store.appendMessages("s1", [note("s1", "a", 0)]);
        await store.appendMessages("s2", [note("s2", "a", 0)]);
        const entries = [1, 2, 3, 4].map((at) => ({ sessionId: "s1", record: assembly(at) }));
        await store.recordAssemblies(
          [...entries, { sessionId: "s2", record: assembly(9) }, { sessionId: "nope", record: assembly(7) }],
          3,
        );
        const listed = await store.listAssemblies("s1", 10);
        expect(listed.map((record) => record.assembledAt)).toEqual([4, 3, 2]);
        expect(listed[0]).toEqual({ ...assembly(4), sessionId: "s1" });
        expect((await store.listAssemblies("s2", 10)).map((record) => record.assembledAt)).toEqual([9]);
        expect(await store.listAssemblies("nope", 10)).toEqual([]);
        expect((await store.storeTotals()).assemblies).toBe(4);
      }),
    );

    it(
      "prunes records by count and age without touching messages, summaries or lifetime totals",
      withStore(async (store) => {
        await store.appendMessages("s1", [note("s1", "a", 0), note("s1", "b", 1)]);
        const leaf = summary("sum_00000000000000p1", "leaf", 0, [[1, 1]], []);
        await store.applyCompaction("s1", {
          summaries: [leaf],
          edits: [replaceMessages(leaf.summaryId, [1], 1)],
        });
        for (const [index, at] of [100, 200, 300].entries()) {
          await store.recordCompactionPass("s1", {
            ...pass(`pass_000000000000010${index}`, 50, 40, "compacted"),
            startedAt: at,
          });
        }
        await store.recordAssemblies(
          [100, 200, 300].map((at) => ({ sessionId: "s1", record: assembly(at) })),
          10,
        );
        const byAge = await store.pruneRecords({
          passesPerSession: 10,
          assembliesPerSession: 10,
          olderThan: 150,
        });
        expect(byAge).toEqual({ passesDeleted: 1, assembliesDeleted: 1 });
        const byCount = await store.pruneRecords({ passesPerSession: 1, assembliesPerSession: 0 });
        expect(byCount).toEqual({ passesDeleted: 1, assembliesDeleted: 2 });
        const left = await store.listCompactionPasses({ sessionId: "s1", limit: 10 });
        expect(left.map((entry) => entry.startedAt)).toEqual([300]);
        expect(await store.sessionReport("s1")).toMatchObject({
          messageCount: 2,
          summaryCount: 1,
          compactionPasses: 3,
          tokensRemovedTotal: 30,
        });
      }),
    );

    it(
      "deletes one session completely, search index included, and leaves the others alone",
      withStore(async (store) => {
        await store.appendMessages("s1", [note("s1", "zebra crossing", 0), note("s1", "other", 1)]);
        await store.appendMessages("s2", [note("s2", "zebra stripes", 0)]);
        const leaf = summary("sum_00000000000000d1", "leaf", 0, [[1, 1]], []);
        await store.applyCompaction("s1", {
          summaries: [leaf],
          edits: [replaceMessages(leaf.summaryId, [1], 1)],
        });
        await store.recordCompactionPass("s1", pass("pass_00000000000000d1", 9, 5, "compacted"));
        await store.recordAssemblies([{ sessionId: "s1", record: assembly(1) }], 5);
        expect(await store.findSummarySession(leaf.summaryId)).toBe("s1");
        expect(await store.deleteSession("s1")).toEqual({ messages: 2, summaries: 1, records: 2 });
        expect(await store.deleteSession("s1")).toEqual({ messages: 0, summaries: 0, records: 0 });
        expect(await store.searchMessages("s1", ["zebra"], 5)).toEqual([]);
        expect(await store.searchSummaries("s1", ["summary"], "content", 5)).toEqual([]);
        expect((await store.searchMessages("s2", ["zebra"], 5)).map((hit) => hit.key)).toEqual([1]);
        expect(await store.findSummarySession(leaf.summaryId)).toBeUndefined();
        expect(await store.readCompactionPass("pass_00000000000000d1")).toBeUndefined();
        expect((await store.listSessions()).map((session) => session.sessionId)).toEqual(["s2"]);
        const again = await store.appendMessages("s1", [note("s1", "zebra crossing", 0)]);
        expect(again.inserted.map((entry) => entry.seq)).toEqual([1]);
        expect((await store.searchMessages("s1", ["zebra"], 5)).map((hit) => hit.key)).toEqual([1]);
      }),
    );

    it(
      "lists sessions with their newest message time, counts the store and remembers upkeep",
      withStore(async (store) => {
        await store.appendMessages("s1", [note("s1", "a", 0), note("s1", "b", 7)]);
        await store.appendMessages("s2", [note("s2", "a", 3)]);
        const sessions = await store.listSessions();
        expect(
          sessions.map(({ sessionId, messageCount, summaryCount, lastMessageAt }) => ({
            sessionId,
            messageCount,
            summaryCount,
            lastMessageAt,
          })),
        ).toEqual([
          { sessionId: "s1", messageCount: 2, summaryCount: 0, lastMessageAt: 1_007 },
          { sessionId: "s2", messageCount: 1, summaryCount: 0, lastMessageAt: 1_003 },
        ]);
        expect(await store.storeTotals()).toEqual({
          sessions: 2,
          messages: 3,
          summaries: 0,
          compactionPasses: 0,
          assemblies: 0,
        });
        expect(await store.lastUpkeepAt()).toBeUndefined();
        await store.setLastUpkeepAt(42);
        await store.setLastUpkeepAt(43);
        expect(await store.lastUpkeepAt()).toBe(43);
        for (const mode of ["incremental", "full"] as const) {
          const reclaimed = await store.reclaimSpace(mode);
          expect(reclaimed.bytesAfter).toBeGreaterThanOrEqual(0);
          expect(reclaimed.reclaimableBytes).toBeGreaterThanOrEqual(0);
        }
        expect((await store.readMessages("s1", [1, 2])).length).toBe(2);
      }),
    );
  });
}

function note(sessionId: string, text: string, index: number): NewStoredMessage {
  const json = JSON.stringify({ content: text, role: "user", timestamp: 1_000 + index });
  const identity = createHash("sha256").update(`${sessionId}\0${text}`).digest("hex");
  return { identity, role: "user", createdAt: 1_000 + index, tokens: 10, json };
}

function summary(
  summaryId: string,
  kind: "leaf" | "condensed",
  depth: number,
  sourceRanges: Array<[number, number]>,
  childIds: string[],
): NewSummary {
  return {
    summaryId,
    kind,
    depth,
    content: "summary",
    tokens: 9,
    sourceRanges,
    sourceCount: sourceRanges.reduce((total, [first, last]) => total + last - first + 1, 0),
    sourceTokens: 30 + depth,
    childIds,
    anchors: [],
    earliestAt: 1_000,
    latestAt: 1_002,
    summarizer: "test",
    createdAt: 5_000,
  };
}

function replaceMessages(summaryId: string, seqs: number[], firstPosition: number) {
  return {
    replace: seqs.map((seq, index) => ({
      position: firstPosition + index,
      ref: { kind: "message" as const, seq },
    })),
    summaryId,
    tokens: 9,
    json: '{"role":"user","content":"summary"}',
  };
}

function replaceRoot(rootId: string, childId: string) {
  return {
    replace: [
      { position: 1, ref: { kind: "summary" as const, summaryId: childId } },
      { position: 3, ref: { kind: "message" as const, seq: 3 } },
    ],
    summaryId: rootId,
    tokens: 9,
    json: '{"role":"user","content":"summary"}',
  };
}

function pass(
  passId: string,
  tokensBefore: number,
  tokensAfter: number,
  outcome: NewCompactionPass["outcome"],
): NewCompactionPass {
  return {
    passId,
    trigger: "compact",
    level: "leaf",
    outcome,
    startedAt: 10_000,
    durationMs: 12,
    tokensBefore,
    tokensAfter,
    targetTokens: 600,
    budgetTokens: 800,
    inputs: { messages: 3, summaries: 0, tokens: tokensBefore - tokensAfter },
    outputs: { leaf: 1, condensed: 0, tokens: 40, prepared: 1 },
    summaryIds: ["sum_0000000000000001"],
    summarizer: "extractive",
    writtenBy: ["extractive"],
    viewVersionBefore: 1,
    viewVersionAfter: 2,
  };
}

function assembly(assembledAt: number): NewAssemblyRecord {
  return {
    assembledAt,
    durationMs: 0.5,
    viewVersion: 3,
    budgetTokens: 1_000,
    tokens: 400,
    items: { raw: 3, summary: 1, other: 1 },
    tokensByKind: { raw: 300, summary: 90, other: 10 },
    evicted: { items: 2, raw: 2, summaries: 0, first: "m1", last: "m2" },
    clipped: 0,
    orphans: 0,
    prefixStable: assembledAt > 1 ? true : null,
  };
}
