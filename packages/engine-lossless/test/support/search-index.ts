import { createHash } from "node:crypto";
import Database from "better-sqlite3";
import type { NewStoredMessage } from "../../src/store/store.js";

/** A stored user message whose text is `text`, with an identity unique to the session and index. */
export function textRecord(sessionId: string, index: number, text: string): NewStoredMessage {
  return {
    identity: createHash("sha256").update(`${sessionId}\0${index}\0${text}`).digest("hex"),
    role: "user",
    createdAt: 1_000 + index,
    tokens: 8,
    json: JSON.stringify({ content: text, role: "user", timestamp: 1_000 + index }),
  };
}

/**
 * Checks `messages_fts` on a connection of its own and throws when it is not exactly "every
 * message up to the watermark, each once": FTS5's own consistency check, the indexed row ids
 * against the stored ones, and the index's row count (a message indexed twice counts twice there,
 * which FTS5's check against the content cannot see through the content view).
 */
export function checkMessageIndex(path: string): void {
  const database = new Database(path);
  try {
    database.prepare("INSERT INTO messages_fts (messages_fts, rank) VALUES ('integrity-check', 0)").run();
    const ids = (sql: string) => (database.prepare(sql).all() as Array<{ id: number }>).map((row) => row.id);
    const indexed = ids("SELECT id FROM messages_fts_docsize ORDER BY id");
    const expected = ids(`SELECT id FROM messages
      WHERE id <= (SELECT indexed_to FROM index_watermarks WHERE name = 'messages') ORDER BY id`);
    if (JSON.stringify(indexed) !== JSON.stringify(expected)) {
      throw new Error(`indexed rows ${JSON.stringify(indexed)}, expected ${JSON.stringify(expected)}`);
    }
    const averages = database.prepare("SELECT block FROM messages_fts_data WHERE id = 1").get() as
      | { block: Buffer }
      | undefined;
    const rowCount = averages === undefined ? 0 : readVarint(averages.block);
    if (rowCount !== indexed.length) {
      throw new Error(`the index counts ${rowCount} rows but holds ${indexed.length}`);
    }
  } finally {
    database.close();
  }
}

/** SQLite's variable-length integer at the start of `bytes`. */
function readVarint(bytes: Buffer): number {
  let value = 0;
  for (let index = 0; index < 9; index++) {
    const byte = bytes[index] ?? 0;
    if (index === 8) return value * 256 + byte;
    value = value * 128 + (byte & 0x7f);
    if ((byte & 0x80) === 0) return value;
  }
  return value;
}
