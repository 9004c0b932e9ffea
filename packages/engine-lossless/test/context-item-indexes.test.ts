import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { openSqliteStoreReadOnly } from "../src/store/sqlite/open-read-only.js";
import { applyMigration, configureConnection, migrate, SCHEMA_VERSION } from "../src/store/sqlite/schema.js";
import { textRecord } from "./support/search-index.js";
import { useTempStorePath } from "./support/temp-store.js";

const temp = useTempStorePath("clew-lossless-item-indexes-");

/** The schema versions before the context items' indexes (migration 9) and the heads index (10). */
const BEFORE_ITEM_INDEXES = 8;
const BEFORE_HEADS_INDEX = 9;

/** The query plan of `sql` in the store at `path`, one line per step. */
function planOf(path: string, sql: string, parameters: unknown[] = [1]): string[] {
  const database = new Database(path, { readonly: true });
  try {
    return (
      database.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...parameters) as Array<{ detail: string }>
    ).map((row) => row.detail);
  } finally {
    database.close();
  }
}

/** A connection to the store at `path`, migrated up to schema `version` (the latest by default). */
function databaseAt(path: string, version = SCHEMA_VERSION): Database.Database {
  const database = new Database(path);
  configureConnection(database);
  migrate(database, version);
  return database;
}

describe("deleting a session", () => {
  it("finds the context items of each deleted message or summary by index, never by a scan", async () => {
    // A store from before the indexes, upgraded when the engine opens it.
    databaseAt(temp.path(), BEFORE_ITEM_INDEXES).close();
    const store = temp.open();
    await store.appendMessages("s", [textRecord("s", 1, "a heron"), textRecord("s", 2, "a kestrel")]);
    await store.appendMessages("t", [textRecord("t", 1, "an osprey")]);
    await store.close();
    // Deleting a row makes SQLite look for context items still holding it, once per deleted row.
    for (const sql of [
      "DELETE FROM messages WHERE session_ref = ?",
      "DELETE FROM summaries WHERE session_ref = ?",
    ]) {
      const plan = planOf(temp.path(), sql);
      expect(plan.some((step) => step.startsWith("SCAN context_items"))).toBe(false);
    }
    const reopened = temp.open();
    expect(await reopened.deleteSession("s")).toMatchObject({ messages: 2 });
    expect((await reopened.readMessageRange("t", { limit: 10 })).map((message) => message.seq)).toEqual([1]);
  });
});

describe("reading message heads", () => {
  it("reads them from an index, never from the message rows, in an upgraded store too", async () => {
    databaseAt(temp.path(), BEFORE_HEADS_INDEX).close();
    const store = temp.open();
    await store.appendMessages("s", [textRecord("s", 1, "a heron"), textRecord("s", 2, "a kestrel")]);
    expect(await store.readMessageHeads("s", [2, 1])).toMatchObject([
      { seq: 1, role: "user" },
      { seq: 2, role: "user" },
    ]);
    // The statement the store reads heads with, as it runs it.
    const sql = (store as unknown as { search: { bounded: { messageHeads: { source: string } } } }).search
      .bounded.messageHeads.source;
    await store.close();
    const plan = planOf(temp.path(), sql, [1, "[1, 2]"]);
    expect(plan).toContainEqual(expect.stringContaining("USING COVERING INDEX messages_heads"));
    expect(plan.some((step) => /\bmessages USING (INDEX|PRIMARY KEY)\b/.test(step))).toBe(false);
  });
});

describe("opening a store read-only", () => {
  it("reads the previous schema as it is, and refuses older and newer ones", async () => {
    for (const version of [BEFORE_HEADS_INDEX, BEFORE_ITEM_INDEXES, SCHEMA_VERSION + 1]) {
      const path = `${temp.path()}.${version}`;
      const database = databaseAt(path, Math.min(version, SCHEMA_VERSION));
      database.pragma(`user_version = ${version}`);
      database.close();
      const open = () => openSqliteStoreReadOnly(path);
      if (version === BEFORE_ITEM_INDEXES) expect(open).toThrow(/schema version 8, .*to migrate it/);
      else if (version > SCHEMA_VERSION) expect(open).toThrow(/newer than this code reads.*update Clew/);
      else {
        const store = open();
        expect(await store.readMessageHeads("s", [1])).toEqual([]);
        await store.close();
        // Read-only: left at its version.
        const reopened = new Database(path, { readonly: true });
        expect(reopened.pragma("user_version", { simple: true })).toBe(BEFORE_HEADS_INDEX);
        reopened.close();
      }
    }
  });
});

describe("migrating a store two processes open at once", () => {
  it("skips a step the other one applied after this one read the version", () => {
    const first = databaseAt(temp.path(), BEFORE_HEADS_INDEX);
    const second = new Database(temp.path());
    configureConnection(second);
    try {
      // Both saw version 9; the second migrates first.
      migrate(second);
      expect(applyMigration(first, BEFORE_HEADS_INDEX)).toBe(false);
      expect(first.pragma("user_version", { simple: true })).toBe(SCHEMA_VERSION);
      // A store still at the step's version takes it.
      const third = databaseAt(`${temp.path()}.third`, BEFORE_HEADS_INDEX);
      expect(applyMigration(third, BEFORE_HEADS_INDEX)).toBe(true);
      expect(third.pragma("user_version", { simple: true })).toBe(BEFORE_HEADS_INDEX + 1);
      third.close();
    } finally {
      first.close();
      second.close();
    }
  });
});
