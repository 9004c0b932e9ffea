/**
 * Deleting whole sessions on a user's explicit request: the only way messages ever leave the
 * store. Planning and deleting are separate steps, so a command can show the plan and delete only
 * when confirmed; deleting goes by the planned ids, so a session that became active after the
 * plan is still only deleted if it was planned.
 */
import { InvalidDurationError, LosslessSessionNotFoundError } from "../inspect/errors.js";
import type { LosslessStore, StoredSessionInfo } from "../store/store.js";

const UNIT_MS: Record<string, number> = { h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 };

/**
 * Milliseconds of a duration like `12h`, `90d` or `8w`. Throws `InvalidDurationError` naming
 * `source` for anything else (no unit, zero, fractions, negative numbers).
 */
export function parseDuration(text: string, source: string): number {
  const match = /^([1-9][0-9]*)([hdw])$/.exec(text.trim());
  const unit = match?.[2];
  if (match === null || unit === undefined) throw new InvalidDurationError(source, text);
  return Number(match[1]) * (UNIT_MS[unit] ?? 0);
}

/** Which sessions to delete: one by id, or every session whose newest message is older than a time. */
export type PruneSelector = { sessionId: string } | { olderThan: number };

export interface PrunePlan {
  sessions: StoredSessionInfo[];
  messages: number;
  summaries: number;
}

/**
 * The sessions `selector` names. Throws `LosslessSessionNotFoundError` for a session id the store
 * does not hold (`location` names the store in the message).
 */
export async function planPrune(
  store: LosslessStore,
  selector: PruneSelector,
  location: string,
): Promise<PrunePlan> {
  const all = await store.listSessions();
  const sessions =
    "sessionId" in selector
      ? all.filter((session) => session.sessionId === selector.sessionId)
      : all.filter((session) => session.lastMessageAt < selector.olderThan);
  if ("sessionId" in selector && sessions.length === 0) {
    throw new LosslessSessionNotFoundError(selector.sessionId, location);
  }
  return {
    sessions,
    messages: sessions.reduce((sum, session) => sum + session.messageCount, 0),
    summaries: sessions.reduce((sum, session) => sum + session.summaryCount, 0),
  };
}

export interface PruneResult {
  sessions: number;
  messages: number;
  summaries: number;
  records: number;
}

/** Deletes the planned sessions, one transaction each. Throws the store's error. */
export async function executePrune(store: LosslessStore, plan: PrunePlan): Promise<PruneResult> {
  const result: PruneResult = { sessions: 0, messages: 0, summaries: 0, records: 0 };
  for (const session of plan.sessions) {
    const deleted = await store.deleteSession(session.sessionId);
    result.sessions += 1;
    result.messages += deleted.messages;
    result.summaries += deleted.summaries;
    result.records += deleted.records;
  }
  return result;
}
