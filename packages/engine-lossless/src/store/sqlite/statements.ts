/**
 * Every SQL statement of the SQLite store, prepared once per connection. Reads that take a list
 * (seqs, summary ids, ranges) pass it as one JSON parameter and expand it with `json_each`, so a
 * read is always one statement, however many rows it asks for.
 */
import type Database from "better-sqlite3";

/** A stored message's columns, as `MessageRow` reads them. */
const MESSAGE_COLUMNS = "seq, identity, role, created_at, tokens, json";

/**
 * The messages of a range read (`MessageRangeQuery`), as `m`. One lower bound on seq: given two
 * (after the cursor, from the first range), SQLite took one for the index range and checked the
 * other row by row, so every page scanned the session from seq 1.
 */
const MESSAGE_RANGE = `session_ref = @session AND seq BETWEEN @fromSeq AND @lastSeq
         AND created_at BETWEEN @fromTime AND @toTime
         AND (@ranges IS NULL OR EXISTS (
           SELECT 1 FROM json_each(@ranges) r
           WHERE m.seq BETWEEN json_extract(r.value, '$[0]') AND json_extract(r.value, '$[1]')))`;

const SQL = {
  findSession: "SELECT id, next_seq, next_position, view_version FROM sessions WHERE session_id = ?",
  insertSession: "INSERT INTO sessions (session_id, created_at) VALUES (?, ?)",
  updateSessionCounters: "UPDATE sessions SET next_seq = ?, next_position = ?, view_version = ? WHERE id = ?",
  // A counter, so every call changes a row: SQLite writes nothing for a row rewritten unchanged.
  countJournalStart: `INSERT INTO store_meta (key, value) VALUES ('journals_started', '1')
       ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1`,
  bumpViewVersion: "UPDATE sessions SET view_version = view_version + 1 WHERE id = ?",
  insertMessage: `INSERT INTO messages (session_ref, seq, identity, identity_key, role, created_at, tokens, json)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (session_ref, identity_key, identity) DO NOTHING`,
  insertMessageItem:
    "INSERT INTO context_items (session_ref, position, message_id, tokens) VALUES (?, ?, ?, ?)",
  insertSummary: `INSERT INTO summaries (summary_id, session_ref, kind, depth, content, tokens, first_seq, last_seq,
         source_ranges, source_count, source_tokens, child_ids, anchors, earliest_at, latest_at,
         summarizer, created_at, cost_usd)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  indexSummary: "INSERT INTO summaries_fts (rowid, content, anchors) VALUES (?, ?, ?)",
  // A child gets its first parent, or moves to the rewrite of its parent (an upgrade, 4th value).
  setSummaryParent: `UPDATE summaries SET parent_id = ? WHERE session_ref = ? AND summary_id = ?
       AND (parent_id IS NULL OR parent_id = ?)`,
  summaryRowId: "SELECT id FROM summaries WHERE session_ref = ? AND summary_id = ?",
  // Message items by row id, not joined to their seq: the join read each message's row (a page of
  // its own when its JSON is long), a fifth of a 50k-message backlog's compaction write. The seqs'
  // row ids come from `messageIdsBetween`, read from an index alone.
  itemAt: `SELECT c.position, c.message_id, s.summary_id FROM context_items c
       LEFT JOIN summaries s ON s.id = c.summary_id
       WHERE c.session_ref = ? AND c.position = ?`,
  itemsBetween: `SELECT c.position, c.message_id, s.summary_id FROM context_items c
       LEFT JOIN summaries s ON s.id = c.summary_id
       WHERE c.session_ref = ? AND c.position BETWEEN ? AND ? ORDER BY c.position`,
  messageIdsBetween: "SELECT seq, id FROM messages WHERE session_ref = ? AND seq BETWEEN ? AND ?",
  deleteItemsBetween: "DELETE FROM context_items WHERE session_ref = ? AND position BETWEEN ? AND ?",
  insertSummaryItem:
    "INSERT INTO context_items (session_ref, position, summary_id, tokens, json) VALUES (?, ?, ?, ?, ?)",
  readWatermark: "SELECT watermark FROM transcript_watermarks WHERE session_ref = ?",
  writeWatermark: `INSERT INTO transcript_watermarks (session_ref, watermark) VALUES (?, ?)
       ON CONFLICT (session_ref) DO UPDATE SET watermark = excluded.watermark`,
  readView: `SELECT c.position, c.tokens, c.json AS item_json, m.seq, m.json AS message_json, m.created_at,
         s.summary_id, s.kind, s.depth, s.content, s.anchors, s.source_ranges, s.source_count, s.source_tokens,
         s.earliest_at, s.latest_at, s.summarizer
       FROM context_items c
       LEFT JOIN messages m ON m.id = c.message_id
       LEFT JOIN summaries s ON s.id = c.summary_id
       WHERE c.session_ref = ? ORDER BY c.position`,
  countMessages: "SELECT count(*) AS count FROM messages WHERE session_ref = ?",
  countSummaries: "SELECT count(*) AS count FROM summaries WHERE session_ref = ?",
  readMessagesBySeq: `SELECT ${MESSAGE_COLUMNS} FROM messages
       WHERE session_ref = ? AND seq IN (SELECT value FROM json_each(?)) ORDER BY seq`,
  readMessageRange: `SELECT ${MESSAGE_COLUMNS} FROM messages m WHERE ${MESSAGE_RANGE} ORDER BY seq LIMIT @limit`,
  // The same read through the time index: for a narrow time window (see `messageRange`), which the
  // seq index reaches only after walking every earlier message of the session.
  readMessageTimeWindow: `SELECT ${MESSAGE_COLUMNS} FROM messages m INDEXED BY messages_by_time
       WHERE ${MESSAGE_RANGE} ORDER BY seq LIMIT @limit`,
  // How many of the session's messages fall in a time window, counted up to a limit (index only).
  countTimeWindow: `SELECT count(*) AS count FROM (SELECT 1 FROM messages INDEXED BY messages_by_time
       WHERE session_ref = ? AND created_at BETWEEN ? AND ? LIMIT ?)`,
  readSummaries: `SELECT * FROM summaries WHERE session_ref = ? AND summary_id IN (SELECT value FROM json_each(?))`,
  findLeafSummaries: `SELECT * FROM summaries
       WHERE session_ref = ? AND kind = 'leaf' AND first_seq <= ? AND last_seq >= ? ORDER BY first_seq`,
  searchMessages: `SELECT m.seq AS key, bm25(messages_fts) AS rank FROM messages_fts
       JOIN messages m ON m.id = messages_fts.rowid
       WHERE messages_fts MATCH ? AND m.session_ref = ? ORDER BY rank LIMIT ?`,
  searchSummaries: `SELECT s.summary_id AS key, bm25(summaries_fts) AS rank FROM summaries_fts
       JOIN summaries s ON s.id = summaries_fts.rowid
       WHERE summaries_fts MATCH ? AND s.session_ref = ? ORDER BY rank LIMIT ?`,
};

export type Statements = { [Name in keyof typeof SQL]: Database.Statement };

export function prepareStatements(database: Database.Database): Statements {
  const entries = Object.entries(SQL).map(([name, sql]) => [name, database.prepare(sql)]);
  return Object.fromEntries(entries) as Statements;
}
