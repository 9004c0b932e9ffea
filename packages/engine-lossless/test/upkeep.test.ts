import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { InvalidOptionError, MemoryLogger } from "@clew/core";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { LosslessEngine } from "../src/lossless-engine.js";
import { parseDuration } from "../src/retention/prune-sessions.js";
import { PeriodicUpkeep } from "../src/retention/upkeep.js";
import { openSqliteStore } from "../src/store/sqlite/sqlite-store.js";
import { longConversation } from "./support/conversations.js";
import { store as stored } from "./support/preparation.js";
import { textRecord } from "./support/search-index.js";

const HOUR_MS = 3_600_000;
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function databasePath(): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), "clew-lossless-upkeep-"));
  cleanups.push(() => rm(directory, { recursive: true, force: true }));
  return join(directory, "lossless.db");
}

describe("upkeep in background maintenance", () => {
  it("deletes old recorder records at most once per interval and never a message", async () => {
    let now = 1_800_000_000_000;
    const store = openSqliteStore(await databasePath());
    const engine = new LosslessEngine(store, {
      now: () => now,
      recordRetentionDays: 1,
      upkeepIntervalHours: 24,
    });
    cleanups.push(() => engine.dispose());
    await stored(engine, "s", longConversation(30));
    await engine.compact({ sessionId: "s", tokenBudget: 4_000, force: true });
    const maintain = () => engine.maintain({ sessionId: "s", sessionFile: "memory:s" });

    await maintain();
    expect(await store.lastUpkeepAt()).toBe(now);
    expect(await store.listCompactionPasses({ sessionId: "s", limit: 10 })).toHaveLength(1);

    now += 2 * 24 * HOUR_MS;
    await engine.compact({ sessionId: "s", tokenBudget: 2_000, force: true });
    now += HOUR_MS;
    await maintain();
    const kept = await store.listCompactionPasses({ sessionId: "s", limit: 10 });
    expect(kept.map((pass) => pass.startedAt)).toEqual([now - HOUR_MS]);
    expect(await store.lastUpkeepAt()).toBe(now);

    const lastRun = now;
    now += 23 * HOUR_MS;
    await maintain();
    expect(await store.lastUpkeepAt()).toBe(lastRun);
    const report = await engine.inspect("s");
    expect(report.session.messageCount).toBe(longConversation(30).length);
    expect(report.session.compactionPasses).toBe(2);
  });

  it("rejects bad retention options by name", () => {
    expect(() => new LosslessEngine(undefined, { recordRetentionDays: -1 })).toThrow(InvalidOptionError);
    expect(() => new LosslessEngine(undefined, { assemblyRecordsKept: 1.5 })).toThrow(
      /lossless\.assemblyRecordsKept/,
    );
    expect(() => new LosslessEngine(undefined, { compactionRecordsKept: 0 })).toThrow(
      /lossless\.compactionRecordsKept/,
    );
  });
});

describe("upkeep as the engine closes", () => {
  const settings = {
    upkeepIntervalHours: 24,
    compactionRecordsKept: 10,
    assemblyRecordsKept: 10,
    recordRetentionDays: 0,
  };

  it("is quiet when the closing store cuts a run short, and runs no more once stopped", async () => {
    const logger = new MemoryLogger();
    const store = openSqliteStore(await databasePath());
    const upkeep = new PeriodicUpkeep(store, settings, () => 10 * 24 * HOUR_MS, logger);
    const running = upkeep.runIfDue();
    upkeep.stop();
    await store.close();
    expect(await running).toBeUndefined();
    expect(await upkeep.runIfDue()).toBeUndefined();
    expect(logger.records.filter((record) => record.level === "warn")).toEqual([]);
    // Not stopped, a failing run is worth a warning.
    const other = new PeriodicUpkeep(store, settings, () => 10 * 24 * HOUR_MS, logger);
    await other.runIfDue();
    expect(logger.records.filter((record) => record.level === "warn")).toHaveLength(1);
  });
});

describe("reclaiming space", () => {
  it("frees the pages of a deleted session in small steps on a new store", async () => {
    const store = openSqliteStore(await databasePath());
    cleanups.push(() => store.close());
    const engine = new LosslessEngine(store, {});
    await stored(engine, "big", longConversation(120));
    await stored(engine, "small", longConversation(4));
    const deleted = await store.deleteSession("big");
    expect(deleted.messages).toBeGreaterThan(100);
    const reclaimed = await store.reclaimSpace("incremental");
    expect(reclaimed.bytesAfter).toBeLessThan(reclaimed.bytesBefore);
    expect((await store.sessionReport("small")).messageCount).toBe(longConversation(4).length);
  });
});

describe("merging the full-text index", () => {
  it("leaves one segment per index after upkeep or a vacuum, and every search finds the same", async () => {
    for (const mode of ["incremental", "full"] as const) {
      const path = await databasePath();
      const store = openSqliteStore(path, { backgroundIndexDelayMs: false });
      cleanups.push(() => store.close());
      // Each search indexes what was stored since: one segment per batch, merged only by fours.
      for (let batch = 0; batch < 7; batch++) {
        await store.appendMessages(
          "s",
          Array.from({ length: 5 }, (_, index) =>
            textRecord("s", batch * 5 + index + 1, `batch ${batch} kestrel note ${index}`),
          ),
        );
        await store.searchMessages("s", ["kestrel"], 1);
      }
      const segments = () => {
        const database = new Database(path, { readonly: true });
        try {
          return database.prepare("SELECT count(DISTINCT segid) FROM messages_fts_idx").pluck().get();
        } finally {
          database.close();
        }
      };
      expect(segments()).toBeGreaterThan(1);
      const queries = [["kestrel"], ["batch", "note"], ["3 kestrel"]];
      const before = await Promise.all(queries.map((terms) => store.searchMessages("s", terms, 50)));
      // Upkeep's reclaim runs in the background: other work gets the event loop between its steps.
      const order: string[] = [];
      setImmediate(() => order.push("other work"));
      await store.reclaimSpace(mode).then(() => order.push("reclaimed"));
      expect(order).toEqual(mode === "incremental" ? ["other work", "reclaimed"] : ["reclaimed"]);
      expect(segments()).toBe(1);
      expect(await Promise.all(queries.map((terms) => store.searchMessages("s", terms, 50)))).toEqual(before);
    }
  });
});

describe("durations", () => {
  it("reads hours, days and weeks and names the flag for anything else", () => {
    expect(parseDuration("12h", "--older-than")).toBe(12 * HOUR_MS);
    expect(parseDuration("90d", "--older-than")).toBe(90 * 24 * HOUR_MS);
    expect(parseDuration("2w", "--older-than")).toBe(14 * 24 * HOUR_MS);
    for (const bad of ["90", "0d", "1.5d", "-3d", "d", "90 days"]) {
      expect(() => parseDuration(bad, "--older-than")).toThrow(`Invalid --older-than: "${bad}"`);
    }
  });
});
