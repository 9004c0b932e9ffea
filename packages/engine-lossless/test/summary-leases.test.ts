import { afterEach, describe, expect, it } from "vitest";
import { type PreparableChunk, preparableChunks } from "../src/prepare/preparable-chunks.js";
import type { LosslessStore } from "../src/store/store.js";
import { SessionView } from "../src/view/session-view.js";
import {
  maintainAndSettle,
  SMALL_CHUNKS,
  StubSummarizer,
  store,
  TempDatabases,
  TestClock,
  timestampOf,
  turns,
} from "./support/preparation.js";

const databases = new TempDatabases();
afterEach(() => databases.cleanup());

/** The chunks an engine with `SMALL_CHUNKS` prepares for the session now. */
async function chunksOf(db: LosslessStore, sessionId: string): Promise<PreparableChunk[]> {
  const stored = await db.readContextView(sessionId);
  return preparableChunks(SessionView.fromStored(stored.version, stored.items).items, 2_000, 500);
}

/** Lets the event loop run until `condition` holds (a bounded number of turns). */
async function until(condition: () => boolean): Promise<void> {
  for (let turn = 0; turn < 1_000 && !condition(); turn++)
    await new Promise((resolve) => setImmediate(resolve));
  expect(condition()).toBe(true);
}

describe("leased summary jobs", () => {
  it("let two engines on one database prepare every chunk exactly once between them", async () => {
    const path = await databases.path();
    const summarizer = new StubSummarizer("shared");
    const first = databases.open(path, { ...SMALL_CHUNKS, summarizer, workerId: "gateway-1" });
    const second = databases.open(path, { ...SMALL_CHUNKS, summarizer, workerId: "gateway-2" });
    await store(first.engine, "s", turns(60));
    const chunks = await chunksOf(first.store, "s");
    expect(chunks.length).toBeGreaterThanOrEqual(4);
    summarizer.hold();
    await first.engine.maintain({ sessionId: "s", sessionFile: "memory:s" });
    await second.engine.maintain({ sessionId: "s", sessionFile: "memory:s" });
    // Both engines are summarizing at once (two calls each), so their claims really raced.
    await until(() => summarizer.inFlight === 4);
    summarizer.release();
    await Promise.all([first.engine.preparationIdle(), second.engine.preparationIdle()]);
    const firstMessages = chunks.map((chunk) => timestampOf(chunk.items[0]?.message));
    expect([...summarizer.calls].sort()).toEqual([...firstMessages].sort());
    const jobs = await second.store.listSummaryJobs("s");
    expect(jobs.map((job) => job.chunkKey)).toEqual(chunks.map((chunk) => chunk.chunkKey));
    expect(jobs.every((job) => job.prepared !== undefined && job.attempts === 1)).toBe(true);
  });

  it("take over a job whose worker died, once its lease expired", async () => {
    const clock = new TestClock();
    const summarizer = new StubSummarizer("survivor");
    const { engine, store: db } = databases.open(await databases.path(), {
      ...SMALL_CHUNKS,
      summarizer,
      workerId: "survivor",
      now: clock.now,
      summarizerTimeoutMs: 1_000,
    });
    await store(engine, "s", turns(40));
    const [chunk] = await chunksOf(db, "s");
    if (chunk === undefined) throw new Error("no chunk to prepare");
    const { items: _items, tokens: _tokens, ...job } = chunk;
    const lease = { owner: "crashed", now: clock.value, expiresAt: clock.value + 2_000 };
    expect(await db.claimSummaryJob("s", job, lease)).toBe(true);
    const firstMessage = timestampOf(chunk.items[0]?.message);
    const jobNow = async () =>
      (await db.listSummaryJobs("s")).find((entry) => entry.chunkKey === chunk.chunkKey);

    await maintainAndSettle(engine, "s");
    expect(await jobNow()).toMatchObject({ owner: "crashed", attempts: 1 });
    expect((await jobNow())?.prepared).toBeUndefined();
    expect(summarizer.calls).not.toContain(firstMessage);

    clock.value += 2_000;
    await maintainAndSettle(engine, "s");
    const taken = await jobNow();
    expect(taken?.prepared?.summary.content).toContain("survivor call #");
    expect(taken?.owner).toBeUndefined();
    expect(taken?.attempts).toBe(2);
    expect(summarizer.calls.filter((call) => call === firstMessage)).toHaveLength(1);
  });
});

describe("summarizer calls in flight", () => {
  for (const limit of [1, 3]) {
    it(`stay at most summarizerConcurrency (${limit}), preparation and compaction together`, async () => {
      const summarizer = new StubSummarizer("busy");
      const { engine } = databases.open(await databases.path(), {
        ...SMALL_CHUNKS,
        summarizer,
        summarizerConcurrency: limit,
      });
      for (const sessionId of ["a", "b", "c"]) await store(engine, sessionId, turns(60));
      await Promise.all([
        maintainAndSettle(engine, "a"),
        maintainAndSettle(engine, "b"),
        engine.compact({ sessionId: "c", tokenBudget: 2_000, force: true }),
      ]);
      expect(summarizer.calls.length).toBeGreaterThan(limit * 3);
      expect(summarizer.maxInFlight).toBe(limit);
    });
  }
});
