import { statSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { LosslessStoreError } from "../src/errors.js";
import { openSqliteStoreReadOnly } from "../src/store/sqlite/open-read-only.js";
import { openSqliteStore, type SqliteLosslessStore } from "../src/store/sqlite/sqlite-store.js";
import { checkMessageIndex, textRecord } from "./support/search-index.js";

let directory: string;
let path: string;
const stores: SqliteLosslessStore[] = [];

beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), "clew-lossless-index-"));
  path = join(directory, "lossless.db");
});

afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
  await rm(directory, { recursive: true, force: true });
});

function open(backgroundIndexDelayMs: number | false = false): SqliteLosslessStore {
  const store = openSqliteStore(path, { backgroundIndexDelayMs });
  stores.push(store);
  return store;
}

async function seqsFor(store: SqliteLosslessStore, sessionId: string, term: string): Promise<number[]> {
  const hits = await store.searchMessages(sessionId, [term], 100);
  return hits.map((hit) => hit.key).sort((left, right) => left - right);
}

describe("deferred message indexing (sqlite)", () => {
  it("leaves new messages out of the write and indexes them before the next search", async () => {
    const store = open();
    await store.appendMessages("s1", [
      textRecord("s1", 1, "alpha plover"),
      textRecord("s1", 2, "beta plover"),
    ]);
    expect(store.pendingIndexCount()).toBe(2);
    expect(await seqsFor(store, "s1", "plover")).toEqual([1, 2]);
    expect(store.pendingIndexCount()).toBe(0);
    checkMessageIndex(path);
  });

  it("settles on request: pending messages indexed and a grown WAL truncated, with no background step", async () => {
    const store = open(false);
    const bulky = "y".repeat(4_000);
    await store.appendMessages(
      "s1",
      Array.from({ length: 400 }, (_, index) => textRecord("s1", index, `tern${index} ${bulky}`)),
    );
    expect(store.pendingIndexCount()).toBe(400);
    const grown = statSync(`${path}-wal`).size;
    expect(grown).toBeGreaterThan(1024 * 1024);
    await store.settle();
    expect(store.pendingIndexCount()).toBe(0);
    // Truncated, then started again with one small write (a header and a frame or two).
    expect(statSync(`${path}-wal`).size).toBeLessThan(64 * 1024);
    checkMessageIndex(path);
  });

  it("settles a large backlog a batch at a time, with the event loop free between batches", async () => {
    const store = open(false);
    await store.appendMessages(
      "s1",
      Array.from({ length: 1_200 }, (_, index) => textRecord("s1", index, `plover${index}`)),
    );
    const settled = store.settle();
    // Promise callbacks alone never run a second batch.
    for (let tick = 0; tick < 500; tick++) await Promise.resolve();
    expect(store.pendingIndexCount()).toBe(700);
    await settled;
    expect(store.pendingIndexCount()).toBe(0);
    expect(await seqsFor(store, "s1", "plover1199")).toEqual([1_200]);
    checkMessageIndex(path);
  });

  it("indexes in the background after a write, without a search, and truncates a grown WAL", async () => {
    const store = open(1);
    const bulky = "x".repeat(4_000);
    const records = Array.from({ length: 600 }, (_, index) =>
      textRecord("s1", index, `wren${index} ${bulky}`),
    );
    await store.appendMessages("s1", records);
    expect(store.pendingIndexCount()).toBeGreaterThan(0);
    await vi.waitFor(() => expect(store.pendingIndexCount()).toBe(0), { timeout: 10_000, interval: 20 });
    await vi.waitFor(() => expect(statSync(`${path}-wal`).size).toBe(0), { timeout: 10_000, interval: 20 });
    expect(await seqsFor(store, "s1", "wren599")).toEqual([600]);
    checkMessageIndex(path);
  });

  it("answers a search bounded by indexAtMost from the index while an import waits, and finds it once indexed", async () => {
    const store = open(1);
    const keys = (hits: Array<{ key: number }>) => hits.map((hit) => hit.key);
    await store.appendMessages("s1", [textRecord("s1", 1, "heron nest")]);
    expect(await seqsFor(store, "s1", "heron")).toEqual([1]);
    const imported = Array.from({ length: 300 }, (_, index) =>
      textRecord("s1", index + 2, `heron marker${index}`),
    );
    await store.appendMessages("s1", imported);
    const bounded = (terms: string[]) =>
      store.searchMessages("s1", terms, 500, { maxRanked: 200, indexAtMost: 100 });
    // 300 wait: more than 100, so the search answers from the index, without indexing them first.
    expect(keys(await bounded(["marker150"]))).toEqual([]);
    expect(keys(await bounded(["heron"]))).toEqual([1]);
    expect(store.pendingIndexCount()).toBe(300);
    // The background indexes them (scheduled by the write, and again by the search).
    await vi.waitFor(() => expect(store.pendingIndexCount()).toBe(0), { timeout: 10_000, interval: 20 });
    expect(keys(await bounded(["marker150"]))).toEqual([152]);
    // "heron" was counted while the import waited: that count stood for the indexed messages only,
    // so now the word is in every message, common, and left out beside a rare one.
    expect(keys(await store.searchMessages("s1", ["heron", "nest"], 500))).toEqual([1]);
    // A turn's few messages are indexed first, as without the bound.
    await store.appendMessages("s1", [textRecord("s1", 400, "late marker999")]);
    expect(keys(await bounded(["marker999"]))).toEqual([302]);
    checkMessageIndex(path);
  });

  it("rolls indexing back whole when it fails, so a retry indexes each message once", async () => {
    const store = open();
    await store.appendMessages("s1", [textRecord("s1", 1, "gannet one"), textRecord("s1", 2, "gannet two")]);
    const saboteur = new Database(path);
    saboteur.exec(`CREATE TRIGGER fail_watermark BEFORE UPDATE ON index_watermarks
      BEGIN SELECT RAISE(ABORT, 'simulated crash between index rows and watermark'); END`);
    await expect(store.searchMessages("s1", ["gannet"], 10)).rejects.toBeInstanceOf(LosslessStoreError);
    saboteur.exec("DROP TRIGGER fail_watermark");
    saboteur.close();
    expect(store.pendingIndexCount()).toBe(2);
    const hits = await store.searchMessages("s1", ["gannet"], 10);
    expect(hits.map((hit) => hit.key).sort()).toEqual([1, 2]);
    checkMessageIndex(path);
  });

  it("finds messages whose row ids were freed by deleting the newest session", async () => {
    const store = open();
    await store.appendMessages("old", [textRecord("old", 1, "keep me"), textRecord("old", 2, "keep me too")]);
    await store.appendMessages("gone", [textRecord("gone", 1, "bittern"), textRecord("gone", 2, "bittern")]);
    expect(await seqsFor(store, "gone", "bittern")).toEqual([1, 2]);
    await store.deleteSession("gone");
    await store.appendMessages("new", [
      textRecord("new", 1, "curlew one"),
      textRecord("new", 2, "curlew two"),
    ]);
    expect(await seqsFor(store, "new", "curlew")).toEqual([1, 2]);
    expect(await seqsFor(store, "old", "keep")).toEqual([1, 2]);
    checkMessageIndex(path);
  });

  it("lets a read-only store search without indexing, finding what the writer has indexed", async () => {
    const writer = open();
    await writer.appendMessages("s1", [textRecord("s1", 1, "a stilt on the mudflat")]);
    const reader = openSqliteStoreReadOnly(path);
    stores.push(reader);
    expect(await reader.searchMessages("s1", ["stilt"], 5)).toEqual([]);
    expect(await seqsFor(writer, "s1", "stilt")).toEqual([1]);
    expect(await seqsFor(reader, "s1", "stilt")).toEqual([1]);
  });

  it("keeps the index whole when a session is deleted before its messages were indexed", async () => {
    const store = open();
    await store.appendMessages("s1", [textRecord("s1", 1, "dunlin stays")]);
    await store.appendMessages("s2", [textRecord("s2", 1, "dunlin goes"), textRecord("s2", 2, "dunlin")]);
    expect(store.pendingIndexCount()).toBe(3);
    await store.deleteSession("s2");
    expect(store.pendingIndexCount()).toBe(0);
    expect(await seqsFor(store, "s1", "dunlin")).toEqual([1]);
    checkMessageIndex(path);
  });
});
