import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { configureConnection, migrate } from "../src/store/sqlite/schema.js";
import { textRecord } from "./support/search-index.js";
import { useTempStorePath } from "./support/temp-store.js";

const temp = useTempStorePath("clew-lossless-item-indexes-");

/** The schema versions before the context items' indexes (migration 9) and the heads index (10). */
const BEFORE_ITEM_INDEXES = 8;
const BEFORE_HEADS_INDEX = 9;

/** The query plan of `sql` in the store at `path`, one line per step. */
function planOf(path: string, sql: string): string[] {
  const database = new Database(path, { readonly: true });
  try {
    return (database.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(1) as Array<{ detail: string }>).map(
      (row) => row.detail,
    );
  } finally {
    database.close();
  }
}

describe("deleting a session", () => {
  it("finds the context items of each deleted message or summary by index, never by a scan", async () => {
    // A store from before the indexes, upgraded when the engine opens it.
    const database = new Database(temp.path());
    configureConnection(database);
    migrate(database, BEFORE_ITEM_INDEXES);
    database.close();
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
    const database = new Database(temp.path());
    configureConnection(database);
    migrate(database, BEFORE_HEADS_INDEX);
    database.close();
    const store = temp.open();
    await store.appendMessages("s", [textRecord("s", 1, "a heron"), textRecord("s", 2, "a kestrel")]);
    expect(await store.readMessageHeads("s", [2, 1])).toMatchObject([
      { seq: 1, role: "user" },
      { seq: 2, role: "user" },
    ]);
    await store.close();
    const plan = planOf(
      temp.path(),
      "SELECT seq, role, created_at, tokens FROM messages WHERE session_ref = ? AND seq IN (1, 2) ORDER BY seq",
    );
    expect(plan).toEqual([expect.stringContaining("USING COVERING INDEX messages_heads")]);
  });
});
