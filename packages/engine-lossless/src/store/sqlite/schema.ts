/**
 * The SQLite schema, as numbered migrations applied when the database is opened (never on the
 * request path). `PRAGMA user_version` records the last one applied; each runs in its own
 * transaction, so a crash leaves the database at a whole version.
 *
 * Text is stored once. A message's text lives only inside its JSON; the full-text indexes are
 * FTS5 external-content tables whose content is a view that extracts the text from that JSON with
 * SQLite's JSON functions, so the index holds tokens, not a second copy; messages are added to it
 * after the write that stores them (`search-index.ts`). Raw items of the context view read their
 * JSON from `messages` through a join; only rendered summaries are kept in `context_items.json`.
 */
import type Database from "better-sqlite3";
import { SUMMARY_JOBS_MIGRATION } from "./job-schema.js";
import { RECORDER_MIGRATION } from "./recorder-schema.js";
import { untimedIdentityKey } from "./rows.js";
import { SEARCH_INDEX_MIGRATION } from "./search-index.js";

const TOKENIZER = "porter unicode61 remove_diacritics 2";

/**
 * Readable text of a message JSON as the first schema read it (a migration, kept as written). It
 * fails ("malformed JSON") on a content list holding something other than objects, and one such
 * message then stopped all message indexing: `MESSAGE_TEXT_SQL` replaces it.
 */
const FIRST_MESSAGE_TEXT_SQL = `
  coalesce(
    CASE json_type(m.json, '$.content')
      WHEN 'text' THEN json_extract(m.json, '$.content')
      WHEN 'array' THEN (
        SELECT group_concat(part, char(10)) FROM (
          SELECT CASE json_extract(value, '$.type')
            WHEN 'text' THEN json_extract(value, '$.text')
            WHEN 'thinking' THEN json_extract(value, '$.thinking')
            WHEN 'toolCall' THEN json_extract(value, '$.name') || ' ' || json_extract(value, '$.arguments')
          END AS part
          FROM json_each(m.json, '$.content')
        )
      )
    END, '')
  || coalesce(char(10) || json_extract(m.json, '$.toolName'), '')
  || coalesce(char(10) || json_extract(m.json, '$.command'), '')
  || coalesce(char(10) || json_extract(m.json, '$.output'), '')
  || coalesce(char(10) || json_extract(m.json, '$.summary'), '')`;

/**
 * Readable text of a message JSON: text, thinking, tool calls, tool names, bash and summaries.
 * Content blocks that are not objects (a stray string in a hand-edited transcript) add nothing.
 */
const MESSAGE_TEXT_SQL = `
  coalesce(
    CASE json_type(m.json, '$.content')
      WHEN 'text' THEN json_extract(m.json, '$.content')
      WHEN 'array' THEN (
        SELECT group_concat(part, char(10)) FROM (
          SELECT CASE WHEN type = 'object' THEN CASE json_extract(value, '$.type')
            WHEN 'text' THEN json_extract(value, '$.text')
            WHEN 'thinking' THEN json_extract(value, '$.thinking')
            WHEN 'toolCall' THEN json_extract(value, '$.name') || ' ' || json_extract(value, '$.arguments')
          END END AS part
          FROM json_each(m.json, '$.content')
        )
      )
    END, '')
  || coalesce(char(10) || json_extract(m.json, '$.toolName'), '')
  || coalesce(char(10) || json_extract(m.json, '$.command'), '')
  || coalesce(char(10) || json_extract(m.json, '$.output'), '')
  || coalesce(char(10) || json_extract(m.json, '$.summary'), '')`;

/**
 * A migration that rebuilds a table: it runs with foreign keys off (a table being dropped and
 * renamed is briefly missing for the rows that reference it), still in one transaction.
 */
interface TableRebuild {
  rebuild: (database: Database.Database) => void;
}

const MIGRATIONS: ReadonlyArray<string | TableRebuild> = [
  `
  CREATE TABLE sessions (
    id INTEGER PRIMARY KEY,
    session_id TEXT NOT NULL UNIQUE,
    next_seq INTEGER NOT NULL DEFAULT 1,
    next_position INTEGER NOT NULL DEFAULT 1,
    view_version INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL
  );

  CREATE TABLE messages (
    id INTEGER PRIMARY KEY,
    session_ref INTEGER NOT NULL REFERENCES sessions(id),
    seq INTEGER NOT NULL,
    identity BLOB NOT NULL UNIQUE,
    role TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    tokens INTEGER NOT NULL,
    json TEXT NOT NULL,
    UNIQUE (session_ref, seq)
  );
  CREATE INDEX messages_by_time ON messages (session_ref, created_at);

  CREATE VIEW message_text (id, text) AS SELECT m.id, ${FIRST_MESSAGE_TEXT_SQL} FROM messages m;
  CREATE VIRTUAL TABLE messages_fts USING fts5 (
    text, content = 'message_text', content_rowid = 'id', tokenize = '${TOKENIZER}'
  );

  CREATE TABLE summaries (
    id INTEGER PRIMARY KEY,
    summary_id TEXT NOT NULL UNIQUE,
    session_ref INTEGER NOT NULL REFERENCES sessions(id),
    kind TEXT NOT NULL CHECK (kind IN ('leaf', 'condensed')),
    depth INTEGER NOT NULL,
    content TEXT NOT NULL,
    tokens INTEGER NOT NULL,
    first_seq INTEGER NOT NULL,
    last_seq INTEGER NOT NULL,
    source_ranges TEXT NOT NULL,
    source_count INTEGER NOT NULL,
    source_tokens INTEGER NOT NULL,
    child_ids TEXT NOT NULL,
    anchors TEXT NOT NULL,
    earliest_at INTEGER NOT NULL,
    latest_at INTEGER NOT NULL,
    summarizer TEXT NOT NULL,
    parent_id TEXT,
    created_at INTEGER NOT NULL
  );
  CREATE INDEX summaries_by_span ON summaries (session_ref, kind, first_seq, last_seq);

  CREATE VIEW summary_text (id, content, anchors) AS
    SELECT s.id, s.content,
      (SELECT group_concat(json_extract(value, '$[0]'), char(10)) FROM json_each(s.anchors))
    FROM summaries s;
  CREATE VIRTUAL TABLE summaries_fts USING fts5 (
    content, anchors, content = 'summary_text', content_rowid = 'id', tokenize = '${TOKENIZER}'
  );

  CREATE TABLE context_items (
    session_ref INTEGER NOT NULL REFERENCES sessions(id),
    position INTEGER NOT NULL,
    message_id INTEGER REFERENCES messages(id),
    summary_id INTEGER REFERENCES summaries(id),
    tokens INTEGER NOT NULL,
    json TEXT,
    PRIMARY KEY (session_ref, position),
    CHECK ((message_id IS NULL) <> (summary_id IS NULL))
  ) WITHOUT ROWID;
  `,
  // Flight recorder and upkeep (compaction passes, assemblies, lifetime totals, store_meta).
  RECORDER_MIGRATION,
  // Deferred message indexing (search-index.ts): the indexed-up-to watermark and its delete trigger.
  SEARCH_INDEX_MIGRATION,
  // Summary preparation (job-schema.ts): leased jobs with prepared summaries, the spend ledger.
  SUMMARY_JOBS_MIGRATION,
  // Stored once through a local index (see `rebuildMessagesWithIdentityKey`).
  { rebuild: rebuildMessagesWithIdentityKey },
  // Bootstrap's transcript watermarks: what of a session's transcript is imported already.
  `
  CREATE TABLE transcript_watermarks (
    session_ref INTEGER PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
    watermark TEXT NOT NULL
  );
  `,
  // What a summary cost, when its summarizer reported it (dollars).
  "ALTER TABLE summaries ADD COLUMN cost_usd REAL;",
  // Message text that skips content blocks which are not objects. Indexed rows read the same, so
  // the full-text index stays valid; a row the old view failed on was never indexed.
  `
  DROP VIEW message_text;
  CREATE VIEW message_text (id, text) AS SELECT m.id, ${MESSAGE_TEXT_SQL} FROM messages m;
  `,
  // Context items by the message or summary they hold. Deleting a message or a summary checks that
  // no item still refers to it: without these, every deleted row scanned the whole table, so
  // deleting a session took time quadratic in its size (5,000 messages: 0.7 s; 50,000: minutes).
  `
  CREATE INDEX context_items_by_message ON context_items (message_id) WHERE message_id IS NOT NULL;
  CREATE INDEX context_items_by_summary ON context_items (summary_id) WHERE summary_id IS NOT NULL;
  `,
  // Message heads (seq, role, time, tokens) read from an index: query-aware assembly reads the heads
  // of dozens of candidates per prompt, and a message row, its JSON inline, is a page of its own
  // (80 heads at 50k messages: 0.65 ms from the rows, 0.25 ms from this index; it costs an append
  // about 2 µs per message).
  "CREATE INDEX messages_heads ON messages (session_ref, seq, role, created_at, tokens);",
  // The conversation (the host's session key) a session belongs to, so recall reaches the sessions
  // a conversation had before a /new or /reset (`session-keys.ts`).
  `
  ALTER TABLE sessions ADD COLUMN session_key TEXT;
  CREATE INDEX sessions_by_key ON sessions (session_key, id) WHERE session_key IS NOT NULL;
  `,
];

export const SCHEMA_VERSION = MIGRATIONS.length;
/**
 * The oldest schema this code reads as it is, without migrating it (a read-only open next to a
 * gateway of the previous release): migration 10 only adds an index, and migration 11 a column
 * that only `session-keys.ts` reads, with statements prepared on first use.
 */
export const OLDEST_READABLE_VERSION = 9;

/** Connection settings: WAL, one writer with short transactions, readers never blocked. */
export function configureConnection(database: Database.Database): void {
  database.pragma("journal_mode = WAL");
  database.pragma("synchronous = NORMAL");
  database.pragma("foreign_keys = ON");
  database.pragma("busy_timeout = 5000");
  database.pragma("temp_store = MEMORY");
  // A compaction writes many pages in one transaction; without a limit the WAL file keeps that
  // size on disk after every checkpoint.
  database.pragma("journal_size_limit = 8388608");
  // Checkpoints (two fsyncs each) are done in the background once a burst of writes is over
  // (search-index.ts); SQLite's own, inside a commit, is only the backstop for a WAL past 64 MB.
  database.pragma("wal_autocheckpoint = 16384");
}

/**
 * Applies the migrations the database lacks, up to `target` (the latest unless a test builds an
 * older database). Throws when the database is newer than this code (opening it would risk
 * writing rows an older schema does not understand). Two processes opening an old store at once
 * both migrate it safely: each step checks the version again under the write lock.
 */
export function migrate(database: Database.Database, target: number = SCHEMA_VERSION): void {
  for (;;) {
    const current = schemaVersion(database);
    if (current > SCHEMA_VERSION) {
      throw new Error(`database schema version ${current} is newer than this engine's ${SCHEMA_VERSION}`);
    }
    if (current >= Math.min(target, SCHEMA_VERSION)) return;
    applyMigration(database, current);
  }
}

/**
 * Applies migration `version` (the one that makes the schema `version + 1`) in one write
 * transaction; returns false, and changes nothing, when the database is no longer at `version`
 * once the write lock is held (another process migrated it meanwhile).
 */
export function applyMigration(database: Database.Database, version: number): boolean {
  const step = MIGRATIONS[version] ?? "";
  const apply = database.transaction(() => {
    if (schemaVersion(database) !== version) return false;
    if (typeof step === "string") database.exec(step);
    else step.rebuild(database);
    database.pragma(`user_version = ${version + 1}`);
    return true;
  });
  // Immediate: the version is read under the write lock, so no other writer can move it after.
  if (typeof step === "string") return apply.immediate();
  let applied = false;
  withoutForeignKeys(database, () => {
    applied = apply.immediate();
  });
  return applied;
}

function schemaVersion(database: Database.Database): number {
  return Number(database.pragma("user_version", { simple: true }));
}

/** Runs `body` with foreign key enforcement off (it cannot change inside a transaction). */
function withoutForeignKeys(database: Database.Database, body: () => void): void {
  const enforced = Number(database.pragma("foreign_keys", { simple: true })) === 1;
  database.pragma("foreign_keys = OFF");
  try {
    body();
  } finally {
    if (enforced) database.pragma("foreign_keys = ON");
  }
}

/**
 * Migration "stored once through a local index". Messages were unique by `identity` (a hash) under
 * its own index, so every stored message wrote a random page of that index: most of a turn's
 * commit. Now `identity_key` (the message's own integer timestamp, which grows as a session goes
 * on; else a number from the identity, below every timestamp) comes first in a per-session
 * unique index with the identity, so a turn's messages land on the index's last page. Identities
 * embed the session id, so unique per session is unique across the store.
 *
 * The table is rebuilt (SQLite cannot drop a column constraint's index): rows keep their ids, so
 * the view, the full-text index and summaries still point at them; the view and triggers over
 * `messages` are dropped and made again, and foreign keys are checked before the commit.
 */
function rebuildMessagesWithIdentityKey(database: Database.Database): void {
  const dependents = database
    .prepare(
      `SELECT type, name, sql FROM sqlite_master
       WHERE (type = 'trigger' AND tbl_name = 'messages') OR (type = 'view' AND name = 'message_text')`,
    )
    .all() as Array<{ type: string; name: string; sql: string }>;
  for (const { type, name } of dependents) database.exec(`DROP ${type.toUpperCase()} "${name}"`);
  database.function("lossless_untimed_key", { deterministic: true }, (identity: unknown) =>
    untimedIdentityKey(identity as Buffer),
  );
  const before = (database.prepare("SELECT count(*) AS count FROM messages").get() as { count: number })
    .count;
  database.exec(`
    CREATE TABLE messages_rebuilt (
      id INTEGER PRIMARY KEY,
      session_ref INTEGER NOT NULL REFERENCES sessions(id),
      seq INTEGER NOT NULL,
      identity BLOB NOT NULL,
      identity_key INTEGER NOT NULL,
      role TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      tokens INTEGER NOT NULL,
      json TEXT NOT NULL,
      UNIQUE (session_ref, seq)
    );
    INSERT INTO messages_rebuilt (id, session_ref, seq, identity, identity_key, role, created_at, tokens, json)
      SELECT id, session_ref, seq, identity,
        CASE WHEN json_type(json, '$.timestamp') = 'integer'
            AND abs(json_extract(json, '$.timestamp')) <= 9007199254740991
          THEN json_extract(json, '$.timestamp')
          ELSE lossless_untimed_key(identity) END,
        role, created_at, tokens, json
      FROM messages ORDER BY id;
    DROP TABLE messages;
    ALTER TABLE messages_rebuilt RENAME TO messages;
    CREATE UNIQUE INDEX messages_by_identity ON messages (session_ref, identity_key, identity);
    CREATE INDEX messages_by_time ON messages (session_ref, created_at);
  `);
  const after = (database.prepare("SELECT count(*) AS count FROM messages").get() as { count: number }).count;
  if (after !== before) throw new Error(`rebuilding messages kept ${after} of ${before} rows`);
  for (const { sql } of dependents) database.exec(sql);
  const broken = [
    ...(database.pragma("foreign_key_check(messages)") as unknown[]),
    ...(database.pragma("foreign_key_check(context_items)") as unknown[]),
  ];
  if (broken.length > 0) throw new Error(`rebuilding messages broke ${broken.length} references`);
}
