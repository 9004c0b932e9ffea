import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { storedReadingBody } from "../src/recall/message-text.js";
import { MessageRowCache } from "../src/store/sqlite/message-row-cache.js";
import { openSqliteStore, type SqliteLosslessStore } from "../src/store/sqlite/sqlite-store.js";
import type { StoredMessage } from "../src/store/store.js";
import { appendWords } from "../src/testing/contract-records.js";

const contentOf = (rows: readonly StoredMessage[]) => rows.map((row) => JSON.parse(row.json).content);

describe("message rows read again", () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });

  async function twoConnections(): Promise<[SqliteLosslessStore, SqliteLosslessStore]> {
    const directory = await mkdtemp(join(tmpdir(), "clew-row-cache-"));
    const path = join(directory, "lossless.db");
    const first = openSqliteStore(path, { backgroundIndexDelayMs: false });
    const second = openSqliteStore(path, { backgroundIndexDelayMs: false });
    cleanups.push(async () => {
      await first.close();
      await second.close();
      await rm(directory, { recursive: true, force: true });
    });
    return [first, second];
  }

  it("are never stale after another connection deletes and re-writes the session", async () => {
    const [gateway, other] = await twoConnections();
    await appendWords(gateway, "s1", ["a", "b", "c"]);
    expect(contentOf(await gateway.readMessages("s1", [1, 2, 3]))).toEqual(["a", "b", "c"]);

    await other.deleteSession("s1");
    await appendWords(other, "s1", ["x", "y", "z"]);
    expect(contentOf(await gateway.readMessages("s1", [1, 2, 3]))).toEqual(["x", "y", "z"]);

    // And after this connection's own delete, which does not move its data version.
    await gateway.deleteSession("s1");
    await appendWords(gateway, "s1", ["d"]);
    expect(contentOf(await gateway.readMessages("s1", [1, 2]))).toEqual(["d"]);
    expect(contentOf(await other.readMessages("s1", [1, 2]))).toEqual(["d"]);
  });

  it("and a session's JSON bytes, kept for its report, are the stored ones after any write", async () => {
    const [gateway, other] = await twoConnections();
    const storedBytes = async () =>
      (await gateway.readMessageRange("s1", { limit: 100 })).reduce(
        (sum, row) => sum + Buffer.byteLength(row.json),
        0,
      );
    const reported = async () => (await gateway.sessionReport("s1")).rawJsonBytes;
    await appendWords(gateway, "s1", ["a", "b"]);
    expect(await reported()).toBe(await storedBytes());
    // Kept, then moved by this connection's appends (one of them stored already).
    await appendWords(gateway, "s1", ["b", "c"]);
    expect(await reported()).toBe(await storedBytes());
    await appendWords(other, "s1", ["d"]);
    expect(await reported()).toBe(await storedBytes());
    await gateway.deleteSession("s1");
    await appendWords(gateway, "s1", ["x"]);
    expect(await reported()).toBe(await storedBytes());
    expect(await reported()).toBeGreaterThan(0);
  });

  it("are shared frozen, so no caller can change what the next one reads", async () => {
    const store = openSqliteStore(":memory:", { backgroundIndexDelayMs: false });
    cleanups.push(() => store.close());
    await appendWords(store, "s1", ["a", "b"]);
    const [first] = await store.readMessages("s1", [1]);
    expect(Object.isFrozen(first)).toBe(true);
    expect(() => {
      (first as { json: string }).json = "{}";
    }).toThrow(TypeError);
    const [again] = await store.readMessages("s1", [1, 2]);
    expect(again).toBe(first);
    expect(storedReadingBody(again as StoredMessage)).toBe("a");
  });
});

describe("MessageRowCache", () => {
  const row = (seq: number, chars: number): StoredMessage => ({
    seq,
    identity: seq.toString(16).padStart(64, "0"),
    role: "user",
    createdAt: seq,
    tokens: 1,
    json: "x".repeat(chars),
  });

  function cacheOf(maxChars: number): { cache: MessageRowCache; database: Database.Database } {
    const database = new Database(":memory:");
    const cache = new MessageRowCache(database, maxChars);
    cache.validate();
    return { cache, database };
  }

  it("drops the least recently used rows past its size, and keeps no row over a sixteenth of it", () => {
    const { cache, database } = cacheOf(1_600);
    for (let seq = 1; seq <= 16; seq++) cache.put(7, row(seq, 100));
    // Full; reading 1 makes 2 the least recently used, and 17 pushes it out.
    expect(cache.get(7, 1)?.seq).toBe(1);
    cache.put(7, row(17, 100));
    expect(cache.get(7, 2)).toBeUndefined();
    expect(cache.get(7, 1)?.seq).toBe(1);
    expect(cache.get(7, 3)?.seq).toBe(3);
    expect(cache.get(7, 17)?.seq).toBe(17);
    expect(cache.get(8, 3)).toBeUndefined();

    const large = cache.put(7, row(18, 101));
    expect(Object.isFrozen(large)).toBe(true);
    expect(cache.get(7, 18)).toBeUndefined();
    expect(cache.get(7, 4)?.seq).toBe(4);
    database.close();
  });

  it("empties itself when another connection has committed since the last read", async () => {
    const directory = await mkdtemp(join(tmpdir(), "clew-row-cache-version-"));
    const path = join(directory, "versions.db");
    const mine = new Database(path);
    const theirs = new Database(path);
    try {
      mine.exec("CREATE TABLE t (x)");
      const cache = new MessageRowCache(mine, 10_000);
      cache.validate();
      cache.put(1, row(1, 10));
      mine.exec("INSERT INTO t VALUES (1)");
      cache.validate();
      expect(cache.get(1, 1)?.seq).toBe(1);
      theirs.exec("INSERT INTO t VALUES (2)");
      cache.validate();
      expect(cache.get(1, 1)).toBeUndefined();
    } finally {
      mine.close();
      theirs.close();
      await rm(directory, { recursive: true, force: true });
    }
  });
});
