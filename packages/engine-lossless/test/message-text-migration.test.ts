import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { configureConnection, migrate } from "../src/store/sqlite/schema.js";
import { checkMessageIndex, textRecord } from "./support/search-index.js";
import { useTempStorePath } from "./support/temp-store.js";

const temp = useTempStorePath("clew-lossless-message-text-");

/** A message whose content list holds a string, not a block object (a hand-edited transcript). */
const STRAY_STRING_JSON = JSON.stringify({ content: ["a stray string"], role: "user", timestamp: 2_000 });

/** The schema version before the message-text fix (the eighth migration). */
const BEFORE_THE_FIX = 7;

/** The store as the version before the fix left it: a heron message, then the stray-string one. */
function writeDatabaseBeforeTheFix(): void {
  const database = new Database(temp.path());
  configureConnection(database);
  migrate(database, BEFORE_THE_FIX);
  database.prepare("INSERT INTO sessions (id, session_id, created_at) VALUES (1, 's', 0)").run();
  const insert = database.prepare(`INSERT INTO messages
    (session_ref, seq, identity, identity_key, role, created_at, tokens, json) VALUES (1, ?, ?, ?, 'user', ?, 8, ?)`);
  const heron = textRecord("s", 1, "the heron flew over the marsh");
  insert.run(1, Buffer.from(heron.identity, "hex"), 1_001, 1_001, heron.json);
  insert.run(2, Buffer.alloc(32, 7), 2_000, 2_000, STRAY_STRING_JSON);
  // The old view failed on the second row, so indexing never got past it.
  expect(() => database.prepare("SELECT text FROM message_text").all()).toThrow(/malformed JSON/);
  database.close();
}

describe("message text of content that is not a list of blocks", () => {
  it("no longer stops message indexing, and an upgraded store indexes the rows it stopped at", async () => {
    writeDatabaseBeforeTheFix();
    const store = temp.open();
    expect(await store.searchMessages("s", ["heron"], 10)).toMatchObject([{ key: 1 }]);
    expect(await store.searchMessages("s", ["stray"], 10)).toEqual([]);
    checkMessageIndex(temp.path());
  });

  it("stores and finds the messages around one such message in a new store", async () => {
    const store = temp.open();
    await store.appendMessages("s", [
      textRecord("s", 1, "the heron flew over the marsh"),
      { identity: "ab".repeat(32), role: "user", createdAt: 2_000, tokens: 8, json: STRAY_STRING_JSON },
      textRecord("s", 3, "a kestrel hovered"),
    ]);
    expect((await store.searchMessages("s", ["kestrel"], 10)).map((hit) => hit.key)).toEqual([3]);
    // A list mixing a stray string with a real block keeps the block's text.
    const mixed = {
      content: ["stray", { type: "text", text: "an osprey dived" }],
      role: "user",
      timestamp: 4_000,
    };
    await store.appendMessages("s", [
      { identity: "cd".repeat(32), role: "user", createdAt: 4_000, tokens: 8, json: JSON.stringify(mixed) },
    ]);
    expect((await store.searchMessages("s", ["osprey"], 10)).map((hit) => hit.key)).toEqual([4]);
    checkMessageIndex(temp.path());
  });
});
