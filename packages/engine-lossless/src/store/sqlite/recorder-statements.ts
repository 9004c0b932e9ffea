/**
 * SQL of the flight recorder, the session report and upkeep (retention, deleting a session),
 * prepared once per connection like `statements.ts`. Tables are those of `recorder-schema.ts`.
 */
import type Database from "better-sqlite3";

const SQL = {
  sessionRow: `SELECT id, created_at, view_version, compaction_passes, tokens_removed
       FROM sessions WHERE session_id = ?`,
  messageCount: "SELECT count(*) AS count FROM messages WHERE session_ref = ?",
  // octet_length reads a value's size from its row header: no overflow page of a long message is read.
  messageBytes: "SELECT coalesce(sum(octet_length(json)), 0) AS bytes FROM messages WHERE session_ref = ?",
  summariesByKind: `SELECT kind, count(*) AS count, max(depth) AS depth
       FROM summaries WHERE session_ref = ? GROUP BY kind`,
  viewTotals: `SELECT count(*) AS items, coalesce(sum(c.tokens), 0) AS tokens,
         coalesce(sum(CASE WHEN c.summary_id IS NULL THEN 0 ELSE c.tokens END), 0) AS summary_tokens,
         coalesce(sum(s.source_tokens), 0) AS source_tokens
       FROM context_items c LEFT JOIN summaries s ON s.id = c.summary_id WHERE c.session_ref = ?`,
  storeTotals: `SELECT (SELECT count(*) FROM sessions) AS sessions, (SELECT count(*) FROM messages) AS messages,
         (SELECT count(*) FROM summaries) AS summaries,
         (SELECT count(*) FROM compaction_passes) AS compaction_passes,
         (SELECT count(*) FROM assemblies) AS assemblies`,
  listSessions: `SELECT s.session_id, s.created_at,
         (SELECT count(*) FROM messages m WHERE m.session_ref = s.id) AS message_count,
         (SELECT count(*) FROM summaries x WHERE x.session_ref = s.id) AS summary_count,
         coalesce((SELECT max(m.created_at) FROM messages m WHERE m.session_ref = s.id), s.created_at)
           AS last_message_at
       FROM sessions s ORDER BY s.id`,
  sessionRefs: "SELECT id FROM sessions",
  insertPass: `INSERT INTO compaction_passes (pass_id, session_ref, started_at, record) VALUES (?, ?, ?, ?)
       ON CONFLICT (pass_id) DO NOTHING`,
  countPass: `UPDATE sessions SET compaction_passes = compaction_passes + 1, tokens_removed = tokens_removed + ?
       WHERE id = ?`,
  insertAssembly: "INSERT INTO assemblies (session_ref, assembled_at, record) VALUES (?, ?, ?)",
  trimAssemblies: `DELETE FROM assemblies WHERE session_ref = @session AND id <= (
         SELECT id FROM assemblies WHERE session_ref = @session ORDER BY id DESC LIMIT 1 OFFSET @keep)`,
  trimPasses: `DELETE FROM compaction_passes WHERE session_ref = @session AND id <= (
         SELECT id FROM compaction_passes WHERE session_ref = @session ORDER BY id DESC LIMIT 1 OFFSET @keep)`,
  deletePassesBefore: "DELETE FROM compaction_passes WHERE started_at < ?",
  deleteAssembliesBefore: "DELETE FROM assemblies WHERE assembled_at < ?",
  listPassesOfSession: `SELECT p.record, s.session_id FROM compaction_passes p JOIN sessions s ON s.id = p.session_ref
       WHERE p.session_ref = ? ORDER BY p.id DESC LIMIT ?`,
  listPasses: `SELECT p.record, s.session_id FROM compaction_passes p JOIN sessions s ON s.id = p.session_ref
       ORDER BY p.id DESC LIMIT ?`,
  readPass: `SELECT p.record, s.session_id FROM compaction_passes p JOIN sessions s ON s.id = p.session_ref
       WHERE p.pass_id = ?`,
  listAssemblies: `SELECT a.record, s.session_id FROM assemblies a JOIN sessions s ON s.id = a.session_ref
       WHERE a.session_ref = ? ORDER BY a.id DESC LIMIT ?`,
  summarySession: `SELECT s.session_id FROM summaries x JOIN sessions s ON s.id = x.session_ref
       WHERE x.summary_id = ?`,
  readMeta: "SELECT value FROM store_meta WHERE key = ?",
  writeMeta:
    "INSERT INTO store_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
  // External-content FTS tables forget a row only when told its indexed values, so the index
  // entries go first, computed from the rows that are about to be deleted.
  unindexMessages: `INSERT INTO messages_fts (messages_fts, rowid, text)
       SELECT 'delete', id, text FROM message_text WHERE id IN (SELECT id FROM messages WHERE session_ref = ?)`,
  unindexSummaries: `INSERT INTO summaries_fts (summaries_fts, rowid, content, anchors)
       SELECT 'delete', id, content, anchors FROM summary_text
       WHERE id IN (SELECT id FROM summaries WHERE session_ref = ?)`,
  deleteItems: "DELETE FROM context_items WHERE session_ref = ?",
  deleteAssemblies: "DELETE FROM assemblies WHERE session_ref = ?",
  deletePasses: "DELETE FROM compaction_passes WHERE session_ref = ?",
  deleteSummaries: "DELETE FROM summaries WHERE session_ref = ?",
  deleteMessages: "DELETE FROM messages WHERE session_ref = ?",
  deleteSessionRow: "DELETE FROM sessions WHERE id = ?",
};

export type RecorderStatements = { [Name in keyof typeof SQL]: Database.Statement };

export function prepareRecorderStatements(database: Database.Database): RecorderStatements {
  const entries = Object.entries(SQL).map(([name, sql]) => [name, database.prepare(sql)]);
  return Object.fromEntries(entries) as RecorderStatements;
}
