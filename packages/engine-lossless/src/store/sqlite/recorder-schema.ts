/**
 * Migration "flight recorder and upkeep" (appended to `MIGRATIONS` in `schema.ts`): the tables of
 * the flight recorder, lifetime compaction totals per session (kept when retention deletes old
 * records), and a small key-value table for upkeep state shared by every process on the file.
 *
 * A record is one JSON document; only what a query filters or orders on has its own column.
 */
export const RECORDER_MIGRATION = `
  ALTER TABLE sessions ADD COLUMN compaction_passes INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE sessions ADD COLUMN tokens_removed INTEGER NOT NULL DEFAULT 0;

  CREATE TABLE compaction_passes (
    id INTEGER PRIMARY KEY,
    pass_id TEXT NOT NULL UNIQUE,
    session_ref INTEGER NOT NULL REFERENCES sessions(id),
    started_at INTEGER NOT NULL,
    record TEXT NOT NULL
  );
  CREATE INDEX compaction_passes_by_session ON compaction_passes (session_ref, id);
  CREATE INDEX compaction_passes_by_time ON compaction_passes (started_at);

  CREATE TABLE assemblies (
    id INTEGER PRIMARY KEY,
    session_ref INTEGER NOT NULL REFERENCES sessions(id),
    assembled_at INTEGER NOT NULL,
    record TEXT NOT NULL
  );
  CREATE INDEX assemblies_by_session ON assemblies (session_ref, id);
  CREATE INDEX assemblies_by_time ON assemblies (assembled_at);

  CREATE TABLE store_meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
  ) WITHOUT ROWID;
`;
