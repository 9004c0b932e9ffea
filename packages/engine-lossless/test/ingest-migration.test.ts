import type { AgentMessage } from "@clew/core";
import { charEstimateTokenCounter } from "@clew/core";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { prepareMessages } from "../src/ingest/prepare-messages.js";
import { configureConnection, migrate, SCHEMA_VERSION } from "../src/store/sqlite/schema.js";
import type { NewStoredMessage } from "../src/store/store.js";
import { codingConversation, userText } from "./support/conversations.js";
import { useTempStorePath } from "./support/temp-store.js";

/** The schema version before messages were found through `identity_key`. */
const GLOBAL_IDENTITY_VERSION = 4;

const temp = useTempStorePath("clew-lossless-migrate-");
const open = temp.open;

/** Messages with an integer timestamp, one without, and one with a fractional timestamp. */
function sessionMessages(session: string): AgentMessage[] {
  const untimed = { role: "user", content: `no timestamp in ${session}` } as unknown as AgentMessage;
  return [...codingConversation(4), untimed, userText(`fractional in ${session}`, 1_700_000_000_500.5)];
}

function records(session: string): NewStoredMessage[] {
  return prepareMessages(session, sessionMessages(session), charEstimateTokenCounter, 42).map(
    (entry) => entry.record,
  );
}

/**
 * A database at schema version 4 written the way that version's store wrote it: two sessions of
 * messages (unique by identity across the store), their view, a summary in the view of the first,
 * and the full-text index up to date.
 */
function writeVersionFourDatabase(): void {
  const database = new Database(temp.path());
  database.pragma("auto_vacuum = INCREMENTAL");
  configureConnection(database);
  migrate(database, GLOBAL_IDENTITY_VERSION);
  const insertMessage =
    database.prepare(`INSERT INTO messages (session_ref, seq, identity, role, created_at, tokens, json)
       VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (identity) DO NOTHING`);
  const insertItem = database.prepare(
    "INSERT INTO context_items (session_ref, position, message_id, tokens) VALUES (?, ?, ?, ?)",
  );
  for (const [ref, session] of [
    [1, "s1"],
    [2, "s2"],
  ] as const) {
    const rows = records(session);
    database
      .prepare(
        "INSERT INTO sessions (id, session_id, next_seq, next_position, view_version, created_at) VALUES (?, ?, ?, ?, ?, 0)",
      )
      .run(ref, session, rows.length + 1, rows.length + 1, 1);
    rows.forEach((row, index) => {
      const { lastInsertRowid } = insertMessage.run(
        ref,
        index + 1,
        Buffer.from(row.identity, "hex"),
        row.role,
        row.createdAt,
        row.tokens,
        row.json,
      );
      insertItem.run(ref, index + 1, lastInsertRowid, row.tokens);
    });
  }
  // A leaf summary over the first two messages of s1, in the view in their place.
  const { lastInsertRowid: summaryRow } = database
    .prepare(`INSERT INTO summaries (summary_id, session_ref, kind, depth, content, tokens, first_seq, last_seq,
         source_ranges, source_count, source_tokens, child_ids, anchors, earliest_at, latest_at, summarizer, created_at)
       VALUES ('sum_00000000000000aa', 1, 'leaf', 0, 'the kestrel summary', 9, 1, 2, '[[1,2]]', 2, 30, '[]', '[]', 1, 2, 'test', 3)`)
    .run();
  database.exec(
    "INSERT INTO summaries_fts (rowid, content, anchors) VALUES (1, 'the kestrel summary', NULL)",
  );
  database.exec("DELETE FROM context_items WHERE session_ref = 1 AND position BETWEEN 1 AND 2");
  database
    .prepare(
      "INSERT INTO context_items (session_ref, position, summary_id, tokens, json) VALUES (1, 1, ?, 9, ?)",
    )
    .run(summaryRow, '{"role":"user","content":"summary"}');
  database.exec("UPDATE sessions SET view_version = 2 WHERE id = 1");
  database.exec("INSERT INTO messages_fts (rowid, text) SELECT id, text FROM message_text");
  database.exec(
    "UPDATE index_watermarks SET indexed_to = (SELECT max(id) FROM messages) WHERE name = 'messages'",
  );
  database.close();
}

describe("upgrading a store whose messages are unique by identity across the store", () => {
  it("keeps every message, the view, the summary and the search index", async () => {
    writeVersionFourDatabase();
    const store = open();
    for (const session of ["s1", "s2"]) {
      const stored = await store.readMessageRange(session, { limit: 1_000 });
      const expected = records(session);
      expect(stored.map((row) => row.seq)).toEqual(expected.map((_, index) => index + 1));
      expect(
        stored.map(({ identity, role, createdAt, tokens, json }) => ({
          identity,
          role,
          createdAt,
          tokens,
          json,
        })),
      ).toEqual(
        expected.map(({ identity, role, createdAt, tokens, json }) => ({
          identity,
          role,
          createdAt,
          tokens,
          json,
        })),
      );
    }
    const view = await store.readContextView("s1");
    expect(view.version).toBe(2);
    expect(view.items[0]?.ref).toEqual({ kind: "summary", summaryId: "sum_00000000000000aa" });
    expect(view.items.slice(1).map((item) => item.ref)).toEqual(
      records("s1")
        .slice(2)
        .map((_, index) => ({ kind: "message", seq: index + 3 })),
    );
    expect((await store.readContextView("s2")).items).toHaveLength(records("s2").length);
    expect(await store.searchMessages("s2", ["fractional"], 5)).toEqual([
      expect.objectContaining({ key: records("s2").length }),
    ]);
    expect((await store.searchSummaries("s1", ["kestrel"], "content", 5)).map((hit) => hit.key)).toEqual([
      "sum_00000000000000aa",
    ]);
  });

  it("stores nothing again that was stored before the upgrade, and appends after it", async () => {
    writeVersionFourDatabase();
    const store = open();
    const before = records("s1");
    const untimedIndex = before.findIndex((record) => record.timestamp === undefined);
    // The untimed message comes back with another creation time, as a later ingest gives it.
    const again = before.map((record, index) =>
      index === untimedIndex ? { ...record, createdAt: 99 } : record,
    );
    expect((await store.appendMessages("s1", again)).inserted).toEqual([]);
    const next = prepareMessages(
      "s1",
      [userText("after the upgrade", 1_800_000_000_000)],
      charEstimateTokenCounter,
      43,
    );
    const appended = await store.appendMessages(
      "s1",
      next.map((entry) => entry.record),
    );
    expect(appended.inserted.map((entry) => entry.seq)).toEqual([before.length + 1]);
    expect(appended.viewVersion).toBe(3);
  });

  it("leaves the schema whole: version, indexes, trigger, view, foreign keys", async () => {
    writeVersionFourDatabase();
    const store = open();
    await store.close();
    const database = new Database(temp.path(), { readonly: true });
    try {
      expect(Number(database.pragma("user_version", { simple: true }))).toBe(SCHEMA_VERSION);
      const names = (
        database.prepare("SELECT type, name FROM sqlite_master").all() as Array<{
          type: string;
          name: string;
        }>
      ).map(({ type, name }) => `${type}:${name}`);
      expect(names).toEqual(
        expect.arrayContaining([
          "index:messages_by_identity",
          "index:messages_by_time",
          "trigger:messages_reset_watermark",
          "view:message_text",
          "table:transcript_watermarks",
        ]),
      );
      expect(names).not.toContain("table:messages_rebuilt");
      expect(database.pragma("foreign_key_check")).toEqual([]);
      expect(database.pragma("integrity_check", { simple: true })).toBe("ok");
    } finally {
      database.close();
    }
    const reopened = open();
    expect(await reopened.deleteSession("s2")).toMatchObject({ messages: records("s2").length });
    expect((await reopened.sessionStats("s1")).messageCount).toBe(records("s1").length);
  });
});
