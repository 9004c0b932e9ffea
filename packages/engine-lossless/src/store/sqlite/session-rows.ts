/**
 * The `sessions` row every message, view and search statement starts from: the session's row id
 * and its counters (next seq, next view position, view version). Shared by the store's parts;
 * they run inside its error handling, so these throw better-sqlite3's errors unchanged.
 */
import type { Statements } from "./statements.js";

export interface SessionRow {
  id: number;
  next_seq: number;
  next_position: number;
  view_version: number;
}

/** The session's row, or undefined when nothing was ever stored for it. */
export function findSession(statements: Statements, sessionId: string): SessionRow | undefined {
  return statements.findSession.get(sessionId) as SessionRow | undefined;
}

/** The session's row, inserted (created at `now()`) when missing; call inside a write transaction. */
export function ensureSession(statements: Statements, sessionId: string, now: () => number): SessionRow {
  const existing = findSession(statements, sessionId);
  if (existing !== undefined) return existing;
  statements.insertSession.run(sessionId, now());
  return findSession(statements, sessionId) as SessionRow;
}
