import { spawn } from "node:child_process";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { configureConnection, migrate } from "../src/store/sqlite/schema.js";
import { checkMessageIndex, textRecord } from "./support/search-index.js";
import { useTempStorePath } from "./support/temp-store.js";

const WRITER = join(import.meta.dirname, "fixtures", "append-then-hang.ts");

const temp = useTempStorePath("clew-lossless-durable-");
const open = temp.open;

/** A database at schema version 1 holding one session, written the way version 1 wrote it. */
function writeVersionOneDatabase(): void {
  const database = new Database(temp.path());
  configureConnection(database);
  migrate(database, 1);
  const record = textRecord("s1", 1, "the sandpiper ledger from before the upgrade");
  database.exec(
    "INSERT INTO sessions (session_id, next_seq, next_position, view_version, created_at) VALUES ('s1', 2, 2, 1, 0)",
  );
  const { lastInsertRowid } = database
    .prepare(`INSERT INTO messages (session_ref, seq, identity, role, created_at, tokens, json)
      VALUES (1, 1, ?, ?, ?, ?, ?)`)
    .run(Buffer.from(record.identity, "hex"), record.role, record.createdAt, record.tokens, record.json);
  database
    .prepare("INSERT INTO context_items (session_ref, position, message_id, tokens) VALUES (1, 1, ?, ?)")
    .run(lastInsertRowid, record.tokens);
  // Version 1 indexed every message in the transaction that stored it.
  database.exec("INSERT INTO messages_fts (rowid, text) SELECT id, text FROM message_text");
  database.close();
}

/** Runs the writer fixture, waits until it has stored `count` messages, then kills it. */
async function killWriterAfterAppend(count: number): Promise<string> {
  const child = spawn(process.execPath, ["--import", "tsx", WRITER, temp.path(), String(count)], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  let output = "";
  try {
    await new Promise<void>((resolve, reject) => {
      child.stdout.on("data", (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes("\n")) resolve();
      });
      child.once("exit", (code) => reject(new Error(`the writer exited (${code}) before appending`)));
    });
  } finally {
    child.kill("SIGKILL");
    await exited;
  }
  return output.trim();
}

describe("message index durability (sqlite)", () => {
  it("upgrades a version 1 database: its messages stay findable and new ones are indexed", async () => {
    writeVersionOneDatabase();
    const store = open();
    expect(store.pendingIndexCount()).toBe(0);
    expect((await store.searchMessages("s1", ["sandpiper"], 5)).map((hit) => hit.key)).toEqual([1]);
    await store.appendMessages("s1", [textRecord("s1", 2, "a sandpiper note after the upgrade")]);
    const hits = await store.searchMessages("s1", ["sandpiper"], 5);
    expect(hits.map((hit) => hit.key).sort()).toEqual([1, 2]);
    expect((await store.readContextView("s1")).items).toHaveLength(2);
    checkMessageIndex(temp.path());
  });

  it("indexes what a writer stored before it was killed, once each", async () => {
    expect(await killWriterAfterAppend(40)).toBe("appended 40");
    const store = open();
    expect(store.pendingIndexCount()).toBe(40);
    expect((await store.searchMessages("s1", ["heron39"], 5)).map((hit) => hit.key)).toEqual([40]);
    expect(await store.searchMessages("s1", ["survivor"], 100)).toHaveLength(40);
    checkMessageIndex(temp.path());
  }, 30_000);
});
