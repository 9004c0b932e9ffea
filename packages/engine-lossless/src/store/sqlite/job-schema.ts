/**
 * Migration "summary preparation" (appended to `MIGRATIONS` in `schema.ts`): leased jobs with the
 * summaries they prepared, and the ledger of summarizer tokens per session. Both go with their
 * session (`ON DELETE CASCADE`), so deleting a session needs no statement of its own for them.
 *
 * A prepared summary is one JSON document (the node and its view edit): nothing filters on its
 * fields, and it lives only until a compaction publishes or discards it.
 */
export const SUMMARY_JOBS_MIGRATION = `
  CREATE TABLE summary_jobs (
    session_ref INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    chunk_key TEXT NOT NULL,
    kind TEXT NOT NULL,
    first_position INTEGER NOT NULL,
    last_position INTEGER NOT NULL,
    lease_owner TEXT,
    lease_expires_at INTEGER,
    attempts INTEGER NOT NULL DEFAULT 0,
    prepared TEXT,
    PRIMARY KEY (session_ref, chunk_key)
  ) WITHOUT ROWID;

  CREATE TABLE summary_spend (
    id INTEGER PRIMARY KEY,
    session_ref INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    at INTEGER NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('spent', 'debt')),
    tokens INTEGER NOT NULL,
    chunks INTEGER NOT NULL DEFAULT 0
  );
  CREATE INDEX summary_spend_by_time ON summary_spend (session_ref, at);
`;
