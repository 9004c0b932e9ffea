import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { countMessagesTokens, loadO200kTokenCounter, type TokenCounter, withTokenCache } from "@clew/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BenchEngineStats } from "../../engine-stats.js";
import { messageHash } from "../../metrics/message-hash.js";
import { Provenance } from "../../suites/quality/harness/provenance.js";
import { summarizeEngineCompactions } from "../../suites/quality/metrics/compaction-stats.js";
import {
  diskUsageOf,
  measureClosedStore,
  measureOpenDisk,
  type OpenDiskUsage,
} from "../../suites/quality/metrics/disk-usage.js";
import { qualityPreset, summaryCap } from "../../suites/quality/presets.js";
import { runCrashScenario } from "../../suites/quality/scenarios/crash-scenario.js";
import { createQualityRun, openSession, storedMessages } from "../../suites/quality/scenarios/quality-run.js";
import {
  conversationReplayTurns,
  conversationSources,
  generateConversation,
} from "../../workloads/locomo/generate-conversation.js";
import { messagesOfTurns } from "../../workloads/replay-turn.js";

const stats: BenchEngineStats = {
  storeBytes: 30_000,
  messagesStored: 10,
  compaction: { passes: 4, tokensRemovedTotal: 2_000 },
  summaries: { count: 5, summaryTokens: 100, sourceTokens: 1_000, deepestChain: 2 },
};

const open = (engineStats: OpenDiskUsage["stats"]): OpenDiskUsage => ({
  messages: 10,
  rawBytes: 1_000,
  transcriptBytes: 1_500,
  transcriptSummaryBytes: 0,
  stats: engineStats,
});

describe("store figures from the stats hook", () => {
  it("reports the store open and closed, apart from the transcript and together with it", () => {
    expect(diskUsageOf(open(stats), 2_500)).toMatchObject({
      storeOpenBytes: 30_000,
      storeClosedBytes: 2_500,
      transcriptToRaw: 1.5,
      storeOpenToRaw: 30,
      storeToRaw: 2.5,
      diskToRaw: 4,
      bytesPerMessage: 400,
      summaryBytes: { na: "summaries in the store: see M12" },
    });
    expect(
      diskUsageOf(open({ ...stats, summaries: { ...stats.summaries, summaryBytes: 70 } }), 0),
    ).toMatchObject({ summaryBytes: 70 });
  });

  it("gives engines without a store n/a store rows and the transcript alone as the total", () => {
    const usage = diskUsageOf(open({ na: "no engine store" }), 9_999);
    expect(usage).toMatchObject({
      storeToRaw: { na: "no engine store" },
      storeOpenToRaw: { na: "no engine store" },
      diskToRaw: 1.5,
      summaryBytes: 0,
    });
  });

  it("counts compactions, tokens removed and the summary chain from the engine's report", () => {
    expect(summarizeEngineCompactions(stats, 50_000)).toMatchObject({
      source: "engine",
      compactions: 4,
      per100kTokens: 8,
      tokensRemovedMean: 500,
      summaries: 5,
      compression: 0.1,
      maxSummaryDepth: 2,
    });
    const idle = { ...stats, compaction: { passes: 0, tokensRemovedTotal: 0 } };
    expect(summarizeEngineCompactions(idle, 50_000).tokensRemovedMean).toEqual({ na: "no compactions" });
    expect(summarizeEngineCompactions({ na: "store unavailable" }, 50_000).compactions).toEqual({
      na: "store unavailable",
    });
  });
});

describe("the lossless engine through the harness", () => {
  let root: string;
  let counter: TokenCounter;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), "clew-engine-stats-"));
    counter = withTokenCache(await loadO200kTokenCounter());
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it("reports its store, its background compactions and its summaries, written by the suite's summarizer", async () => {
    const conversation = generateConversation(qualityPreset("tiny").conversation);
    const turns = conversationReplayTurns(conversation);
    const run = createQualityRun({ engine: "lossless", root, counter, log: () => {} });
    const { session, summarizer } = await openSession(run, {
      name: "lossless-2k",
      budget: 2_000,
      provenance: new Provenance(conversationSources(conversation)),
      summaryTokens: summaryCap(2_000),
    });
    let usage: OpenDiskUsage;
    let listed: string[];
    try {
      expect((await session.replay(turns, () => {})).failures).toEqual([]);
      expect(session.reportsStore && session.keepsStore).toBe(true);
      usage = await measureOpenDisk(session);
      const stored = await storedMessages(session);
      expect(stored.source).toBe("recall store");
      listed = stored.messages.map(messageHash);
    } finally {
      await session.close();
    }
    const engineStats = usage.stats as BenchEngineStats;
    expect(engineStats.messagesStored).toBe(usage.messages);
    expect(listed).toEqual(messagesOfTurns(turns).map(messageHash));
    // The engine runs its passes in background maintenance and tells the host of each one that
    // reduced the view (trigger `maintain`); the host ran none of its own.
    expect(engineStats.compaction.passes).toBeGreaterThan(0);
    expect(session.compactions.length).toBeGreaterThan(0);
    expect(session.compactions.every((compaction) => compaction.trigger === "maintain")).toBe(true);
    expect(session.compactions.length).toBeLessThanOrEqual(engineStats.compaction.passes);
    expect(engineStats.summaries.count).toBeGreaterThan(0);
    expect(summarizer.stats.calls).toBeGreaterThan(0);
    const tokens = countMessagesTokens(counter, messagesOfTurns(turns));
    expect(summarizeEngineCompactions(engineStats, tokens).compactions).toBe(engineStats.compaction.passes);
    const closed = await measureClosedStore(session);
    expect(closed).toBeGreaterThan(0);
    const disk = diskUsageOf(usage, closed);
    expect(disk.storeOpenBytes).toBe(engineStats.storeBytes);
    expect(disk.diskToRaw).toBeGreaterThan(disk.transcriptToRaw);
  });

  it("says n/a for the store of an engine without the hook", async () => {
    const run = createQualityRun({ engine: "legacy", root, counter, log: () => {} });
    const { session } = await openSession(run, {
      name: "legacy",
      budget: 2_000,
      provenance: new Provenance([]),
      summaryTokens: 200,
    });
    try {
      expect(session.reportsStore || session.keepsStore).toBe(false);
      expect(await session.engineStats()).toEqual({ na: "no engine store" });
      expect(await measureClosedStore(session)).toEqual({ na: "no engine store" });
    } finally {
      await session.close();
    }
  });

  it("compares the lossless store after a crash halfway and bootstraps it from the transcript", async () => {
    const run = createQualityRun({ engine: "lossless", root: join(root, "crash"), counter, log: () => {} });
    const report = await runCrashScenario(run, { ...qualityPreset("tiny"), crash: true });
    expect(report).toMatchObject({ source: "recall store", mismatched: 0, duplicates: 0 });
    expect(report.storeCounts).toEqual({ clean: report.cleanMessages, restarted: report.cleanMessages });
    expect(report.cleanMessages).toBeGreaterThan(0);
    expect(typeof report.bootstrap.messagesPerSecond).toBe("number");
  });
});
