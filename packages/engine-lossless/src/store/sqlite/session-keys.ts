/**
 * Which conversation each session belongs to: the host's session key, kept on the session's row,
 * so recall can reach the sessions one conversation had before a `/new` or `/reset` (the same key,
 * a new session id). The statements are prepared on first use: a read-only connection to a schema
 * older than the column never prepares them.
 */
import type Database from "better-sqlite3";
import type { EarlierSessionInfo } from "../history.js";

const SQL = {
  current: "SELECT session_key AS sessionKey FROM sessions WHERE session_id = ?",
  detach: `UPDATE sessions SET session_key = NULL
       WHERE session_key IS NOT NULL AND (session_id = @session OR session_key = @key)`,
  note: "UPDATE sessions SET session_key = @key WHERE session_id = @session",
  // Sessions with the key, created before this one (all of them while this one has no row yet),
  // holding messages, newest first; `min` and `max` of `created_at` read the time index alone.
  earlier: `SELECT s.session_id AS sessionId,
         (SELECT min(m.created_at) FROM messages m WHERE m.session_ref = s.id) AS firstMessageAt,
         (SELECT max(m.created_at) FROM messages m WHERE m.session_ref = s.id) AS lastMessageAt
       FROM sessions s
       WHERE s.session_key = @key AND s.session_id <> @session
         AND s.id < coalesce((SELECT id FROM sessions WHERE session_id = @session), 9223372036854775807)
         AND EXISTS (SELECT 1 FROM messages m WHERE m.session_ref = s.id)
       ORDER BY s.id DESC LIMIT @limit`,
};

export class SessionKeys {
  private statements: { [Name in keyof typeof SQL]: Database.Statement } | undefined;

  constructor(private readonly database: Database.Database) {}

  /**
   * Records `sessionKey` as the session's conversation (a row is written only when the key
   * changes); false, and nothing written, for a session never written.
   */
  note(sessionId: string, sessionKey: string): boolean {
    const statements = this.prepared();
    const row = statements.current.get(sessionId) as { sessionKey: string | null } | undefined;
    if (row === undefined) return false;
    if (row.sessionKey !== sessionKey) statements.note.run({ key: sessionKey, session: sessionId });
    return true;
  }

  /** Takes the session, and every session recorded under `sessionKey`, out of their conversation. */
  detach(sessionId: string, sessionKey: string | undefined): number {
    return this.prepared().detach.run({ session: sessionId, key: sessionKey ?? null }).changes;
  }

  earlier(sessionId: string, sessionKey: string, limit: number): EarlierSessionInfo[] {
    return this.prepared().earlier.all({
      key: sessionKey,
      session: sessionId,
      limit,
    }) as EarlierSessionInfo[];
  }

  private prepared(): { [Name in keyof typeof SQL]: Database.Statement } {
    this.statements ??= {
      current: this.database.prepare(SQL.current),
      detach: this.database.prepare(SQL.detach),
      note: this.database.prepare(SQL.note),
      earlier: this.database.prepare(SQL.earlier),
    };
    return this.statements;
  }
}
