import { statSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it, vi } from "vitest";
import { openSqliteStoreReadOnly } from "../src/store/sqlite/open-read-only.js";
import { openSqliteStore } from "../src/store/sqlite/sqlite-store.js";
import { WalCheckpointer, type WalCheckpointerOptions } from "../src/store/sqlite/wal-checkpointer.js";
import { edit, leafSummary } from "../src/testing/contract-records.js";
import { textRecord } from "./support/search-index.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function databasePath(): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), "clew-checkpointer-"));
  cleanups.push(() => rm(directory, { recursive: true, force: true }));
  return join(directory, "store.db");
}

/** A connection in WAL mode that never checkpoints on its own, with `pages` pages written. */
function walWithPages(path: string, pages: number): Database.Database {
  const database = new Database(path);
  database.pragma("journal_mode = WAL");
  database.pragma("wal_autocheckpoint = 0");
  database.exec("CREATE TABLE notes (body TEXT)");
  const insert = database.prepare("INSERT INTO notes (body) VALUES (?)");
  database.transaction(() => {
    for (let page = 0; page < pages; page++) insert.run(`${page} ${"x".repeat(3_500)}`);
  })();
  return database;
}

/** Bytes of the database file itself: what checkpoints copied into it (the connections never do). */
function fileBytes(path: string): number {
  return statSync(path).size;
}

/** A database whose log holds `pages` pages, and a checkpointer over it; both closed after the test. */
async function logAndCheckpointer(pages: number, options?: WalCheckpointerOptions) {
  const path = await databasePath();
  const database = walWithPages(path, pages);
  const checkpointer = new WalCheckpointer(path, options);
  cleanups.push(async () => {
    await checkpointer.close();
    database.close();
  });
  return { path, database, checkpointer };
}

describe("WalCheckpointer", () => {
  it("copies the log into the database in its worker, while this connection keeps writing", async () => {
    const { path, database, checkpointer } = await logAndCheckpointer(300);
    const before = fileBytes(path);
    const running = checkpointer.checkpoint();
    // A passive checkpoint blocks no writer: this write neither waits nor fails.
    database.prepare("INSERT INTO notes (body) VALUES ('written meanwhile')").run();
    expect(await running).toBeTypeOf("boolean");
    // Asked again once that one ran, it copies what was written meanwhile too.
    expect(await checkpointer.checkpoint()).toBe(true);
    expect(before).toBeLessThan(300 * 3_500);
    expect(fileBytes(path)).toBeGreaterThan(300 * 3_500);
    // Nothing is left to copy, so truncating here is a truncation only.
    database.pragma("wal_checkpoint(TRUNCATE)");
    expect(statSync(`${path}-wal`).size).toBe(0);
    expect(database.prepare("SELECT count(*) FROM notes").pluck().get()).toBe(301);
  });

  it("joins the calls made during a checkpoint into one that runs after it", async () => {
    const { path, checkpointer } = await logAndCheckpointer(50);
    const first = checkpointer.checkpoint();
    const second = checkpointer.checkpoint();
    const third = checkpointer.checkpoint();
    expect(second).toBe(third);
    expect(second).not.toBe(first);
    await Promise.all([first, second]);
    expect(fileBytes(path)).toBeGreaterThan(50 * 3_500);
  });

  it("replaces a worker that died between checkpoints, and answers one that dies during its own", async () => {
    const started: Worker[] = [];
    const { database, checkpointer } = await logAndCheckpointer(20, {
      startWorker: (source, options) => {
        const worker = new Worker(source, options);
        started.push(worker);
        return worker;
      },
    });
    expect(await checkpointer.checkpoint()).toBe(true);
    await started[0]?.terminate();
    database.prepare("INSERT INTO notes (body) VALUES ('after the worker died')").run();
    expect(await checkpointer.checkpoint()).toBe(true);
    expect(started).toHaveLength(2);
    // Ended while its checkpoint runs: the caller hears false, and the next call starts another.
    const running = checkpointer.checkpoint();
    await started[1]?.terminate();
    expect(await running).toBeTypeOf("boolean");
    expect(await checkpointer.checkpoint()).toBe(true);
    expect(started).toHaveLength(3);
  });

  it("answers a checkpoint in flight when closed, and false after", async () => {
    const path = await databasePath();
    const database = walWithPages(path, 200);
    const checkpointer = new WalCheckpointer(path);
    cleanups.push(async () => {
      database.close();
    });
    const running = checkpointer.checkpoint();
    await checkpointer.close();
    expect(await running).toBeTypeOf("boolean");
    expect(await checkpointer.checkpoint()).toBe(false);
  });

  it("answers false, never throws, for a missing database and once closed", async () => {
    const path = await databasePath();
    const missing = new WalCheckpointer(path);
    cleanups.push(() => missing.close());
    expect(await missing.checkpoint()).toBe(false);
    await missing.close();
    expect(await missing.checkpoint()).toBe(false);
  });
});

describe("the store's checkpoints", () => {
  /** A file store (no background indexing) whose log holds `messages` messages of 5 KB. */
  async function storeWithLog(messages: number) {
    const path = await databasePath();
    const store = openSqliteStore(path, { backgroundIndexDelayMs: false });
    cleanups.push(() => store.close());
    await store.appendMessages(
      "s1",
      Array.from({ length: messages }, (_, index) =>
        textRecord("s1", index + 1, `kite${index} ${"k".repeat(5_000)}`),
      ),
    );
    return { path, store };
  }
  it("leave a log to background work before a compaction's write that keeps it well short of SQLite's own", async () => {
    const { path, store } = await storeWithLog(400);
    const before = statSync(`${path}-wal`).size;
    expect(before).toBeGreaterThan(1024 * 1024);
    const summary = leafSummary("sum_00000000000000f1", [[1, 2]]);
    await store.applyCompaction("s1", { summaries: [summary], edits: [edit(summary.summaryId, [1, 2])] });
    expect(statSync(`${path}-wal`).size).toBeGreaterThanOrEqual(before);
    expect((await store.readContextView("s1")).items[0]?.ref).toEqual({
      kind: "summary",
      summaryId: summary.summaryId,
    });
  });

  it("empty a log before a compaction's write that would take it near SQLite's own checkpoint", async () => {
    const path = await databasePath();
    const store = openSqliteStore(path, { backgroundIndexDelayMs: false });
    cleanups.push(() => store.close());
    const walSize = () => statSync(`${path}-wal`).size;
    let stored = 0;
    // Grown to 44 MB: short of the 48 at which a bulk write has it emptied.
    while (walSize() < 44 * 1024 * 1024) {
      await store.appendMessages(
        "s1",
        Array.from({ length: 500 }, (_, index) => textRecord("s1", stored + index + 1, "k".repeat(5_000))),
      );
      stored += 500;
    }
    const before = walSize();
    expect(before).toBeLessThan(48 * 1024 * 1024);
    // A summary of 3 MB: its row, item and index entries would take the log past 48 MB.
    const summary = { ...leafSummary("sum_00000000000000f2", [[1, 2]]), content: "summary ".repeat(400_000) };
    await store.applyCompaction("s1", { summaries: [summary], edits: [edit(summary.summaryId, [1, 2])] });
    // Emptied first: what is left is the compaction's own write.
    expect(walSize()).toBeLessThan(before / 2);
  });

  it("are never made by a read-only store, which changes no file", async () => {
    const { path } = await storeWithLog(300);
    const sizes = () => [statSync(path).size, statSync(`${path}-wal`).size];
    const before = sizes();
    expect(before[1]).toBeGreaterThan(1024 * 1024);
    const reader = openSqliteStoreReadOnly(path);
    await reader.settle();
    await reader.close();
    expect(sizes()).toEqual(before);
  });

  it("empty the log a bulk import grew, with no background indexing or settle asking", async () => {
    const path = await databasePath();
    const store = openSqliteStore(path, { backgroundIndexDelayMs: false });
    cleanups.push(() => store.close());
    const bulky = "y".repeat(6_000);
    const walSize = () => statSync(`${path}-wal`).size;
    let stored = 0;
    // Parts of a bulk import until the log passes 48 MB (and stays under SQLite's own 64 MB).
    while (walSize() <= 48 * 1024 * 1024 && stored < 12_000) {
      await store.appendMessages(
        "s1",
        Array.from({ length: 1_000 }, (_, index) =>
          textRecord("s1", stored + index + 1, `osprey${stored + index + 1} ${bulky}`),
        ),
      );
      stored += 1_000;
    }
    // The write past 48 MB asked the worker; what it did lands on a later turn of the loop.
    expect(walSize()).toBeGreaterThan(48 * 1024 * 1024);
    expect(walSize()).toBeLessThan(64 * 1024 * 1024);
    await vi.waitFor(() => expect(walSize()).toBe(0), { timeout: 10_000, interval: 20 });
    await store.settle();
    expect(statSync(`${path}-wal`).size).toBeLessThanOrEqual(1024 * 1024);
    expect((await store.searchMessages("s1", [`osprey${stored}`], 5)).map((hit) => hit.key)).toEqual([
      stored,
    ]);
  });
});
