import { charEstimateTokenCounter, type SummarizeInput } from "@clew/core";
import { afterEach, describe, expect, it } from "vitest";
import { leafCap } from "../src/compaction/leaf-chunk.js";
import type { StoredSummaryJob } from "../src/store/store.js";
import {
  maintainAndSettle,
  SMALL_CHUNKS,
  StubSummarizer,
  store,
  TempDatabases,
  TestClock,
  turns,
} from "./support/preparation.js";

const databases = new TempDatabases();
afterEach(() => databases.cleanup());

const HOUR_MS = 3_600_000;

function preparedBy(jobs: readonly StoredSummaryJob[], summarizer: string) {
  return jobs.flatMap((job) =>
    job.prepared !== undefined && job.prepared.summary.summarizer === summarizer
      ? [job.prepared.summary]
      : [],
  );
}

describe("the summarizer spend budget", () => {
  it("writes extractive summaries once a session's budget is spent, and reports the debt", async () => {
    const clock = new TestClock();
    const summarizer = new StubSummarizer("paid");
    const { engine, store: db } = databases.open(await databases.path(), {
      ...SMALL_CHUNKS,
      summarizer,
      now: clock.now,
      summarySpendTokensPerSession: 1_500,
      summarySpendWindowHours: 1,
      summarizerConcurrency: 1,
    });
    await store(engine, "s", turns(60));
    await maintainAndSettle(engine, "s");
    const jobs = await db.listSummaryJobs("s");
    const paid = preparedBy(jobs, summarizer.id);
    const extractive = preparedBy(jobs, `extractive in place of ${summarizer.id}`);
    expect(paid.length).toBeGreaterThan(0);
    expect(extractive.length).toBeGreaterThan(0);
    expect(paid.length + extractive.length).toBe(jobs.length);
    expect(summarizer.calls).toHaveLength(paid.length);

    // Spent: each call's input and what it returned; debt: each skipped call's input and cap.
    const returned = (content: string) =>
      charEstimateTokenCounter.countText(content.split("\n").slice(0, 2).join("\n"));
    const report = await engine.spendReport("s");
    expect(report).toMatchObject({
      available: true,
      limitTokens: 1_500,
      windowHours: 1,
      summarizer: summarizer.id,
    });
    expect(report.window.calls).toBe(paid.length);
    expect(report.window.spentTokens).toBe(
      paid.reduce((sum, summary) => sum + summary.sourceTokens + returned(summary.content), 0),
    );
    expect(report.window.spentTokens).toBeLessThanOrEqual(1_500);
    expect(report.window.debtChunks).toBe(extractive.length);
    expect(report.window.debtTokens).toBe(
      extractive.reduce(
        (sum, summary) => sum + summary.sourceTokens + leafCap(1_200, summary.sourceTokens),
        0,
      ),
    );
    expect(report.jobs).toEqual({ prepared: jobs.length, upgrades: 0, leased: 0 });
    expect((await engine.inspect("s")).summarySpend).toEqual(report);
    const status = await engine.describeStatus({ sessionId: "s" });
    expect(status.lines).toContain(
      `Summaries: ${summarizer.id} · ${report.window.spentTokens.toLocaleString("en-US")} of 1,500 tokens spent in the last 1 h (${paid.length} calls) · ` +
        `debt: ${extractive.length} summaries written extractively for lack of budget (${report.window.debtTokens.toLocaleString("en-US")} tokens) · ` +
        `${jobs.length} prepared waiting for the next compaction`,
    );

    // An hour later the window holds nothing: the model writes the next chunks again.
    clock.value += HOUR_MS;
    const callsBefore = summarizer.calls.length;
    await store(engine, "s", turns(70));
    await maintainAndSettle(engine, "s");
    expect(summarizer.calls.length).toBeGreaterThan(callsBefore);
    const later = await engine.spendReport("s");
    expect(later.window.calls).toBe(summarizer.calls.length - callsBefore);
    expect(later.lifetime.calls).toBe(summarizer.calls.length);
    expect(later.lifetime.debtChunks).toBeGreaterThanOrEqual(extractive.length);
  });

  it("settles each call to the tokens its summarizer reported, when it reports them", async () => {
    const inner = new StubSummarizer("reporting");
    const reporting = {
      id: inner.id,
      summarize: async (input: SummarizeInput) => {
        const text = await inner.summarize(input);
        input.onUsage?.({ inputTokens: 1_000, outputTokens: 100 });
        return text;
      },
    };
    const { engine } = databases.open(await databases.path(), { ...SMALL_CHUNKS, summarizer: reporting });
    await store(engine, "s", turns(60));
    await maintainAndSettle(engine, "s");
    const report = await engine.spendReport("s");
    expect(report.window.calls).toBe(inner.calls.length);
    expect(inner.calls.length).toBeGreaterThan(0);
    expect(report.window.spentTokens).toBe(1_100 * inner.calls.length);
  });

  it("never calls the model with a budget of 0, in compaction too, and counts every summary as debt", async () => {
    const summarizer = new StubSummarizer("never");
    const { engine } = databases.open(await databases.path(), {
      ...SMALL_CHUNKS,
      summarizer,
      summarySpendTokensPerSession: 0,
    });
    await store(engine, "s", turns(60));
    const result = await engine.compact({ sessionId: "s", tokenBudget: 3_000, force: true });
    expect(result).toMatchObject({ ok: true, compacted: true });
    const details = result.result?.details as { leafSummaries: number; condensedSummaries: number };
    expect(summarizer.calls).toEqual([]);
    const report = await engine.spendReport("s");
    expect(report.window).toMatchObject({ calls: 0, spentTokens: 0, remainingTokens: 0 });
    expect(report.window.debtChunks).toBe(details.leafSummaries + details.condensedSummaries);
    expect(report.window.debtTokens).toBeGreaterThan(0);
  });

  it("costs nothing with the extractive summarizer", async () => {
    const { engine } = databases.open(await databases.path(), {
      ...SMALL_CHUNKS,
      summarySpendTokensPerSession: 0,
    });
    await store(engine, "s", turns(60));
    await maintainAndSettle(engine, "s");
    const report = await engine.spendReport("s");
    expect(report.jobs.prepared).toBeGreaterThan(0);
    expect(report.lifetime).toEqual({ spentTokens: 0, calls: 0, debtTokens: 0, debtChunks: 0 });
  });

  it("answers without a usable store, saying why", async () => {
    const { engine } = databases.open(await databases.path(), SMALL_CHUNKS);
    await engine.dispose();
    expect(await engine.spendReport("s")).toMatchObject({
      available: false,
      failure: "the engine is disposed",
    });
  });
});
