/**
 * How the recall tools reach the sessions this conversation had before a `/new` or `/reset`: the
 * host's session key stays while the session id changes, and the store lists the earlier sessions
 * under the key (`LosslessStore.earlierSessions`). Their ids are written `prev1:m12` (`prev1` is
 * the session just before this one, `prev2` the one before it); summary ids are unique across the
 * store, so a bare one the session does not hold is looked up in them too.
 */
import { isoTime } from "../recall/message-text.js";
import type { EarlierSessionInfo, LosslessStore } from "../store/store.js";
import type { RecallScope } from "./recall-scope.js";
import type { RecallTarget } from "./recall-target.js";

/** Earlier sessions the tools reach, newest first: a search runs once per session. */
export const MAX_EARLIER_SESSIONS = 8;

export interface EarlierHistory extends EarlierSessionInfo {
  /** 1 for the session just before this one. */
  index: number;
  store: LosslessStore;
}

const EARLIER_ID = /^prev([1-9]\d*):(.+)$/s;

/** `prev2:m12` → `{ index: 2, id: "m12" }`; undefined for other ids. */
export function splitEarlierId(id: string): { index: number; id: string } | undefined {
  const match = EARLIER_ID.exec(id.trim());
  return match === null ? undefined : { index: Number(match[1]), id: (match[2] as string).trim() };
}

export function earlierTarget(history: EarlierHistory): RecallTarget {
  const name = `prev${history.index}`;
  const span = `${isoTime(history.firstMessageAt)} to ${isoTime(history.lastMessageAt)}`;
  return {
    store: history.store,
    sessionId: history.sessionId,
    other: {
      session: "earlier",
      prefix: `${name}:`,
      heading: `From an earlier session of this conversation (${name}, ${span}):`,
      label: `earlier session ${name} (${span})`,
    },
  };
}

/** The conversation's earlier sessions, newest first (none when the session key is unknown). */
export async function earlierHistories(scope: RecallScope): Promise<EarlierHistory[]> {
  return scope.earlier === undefined ? [] : scope.earlier();
}

/** @throws Error naming the earlier sessions there are, for an index beyond them. */
export async function requireEarlier(scope: RecallScope, index: number): Promise<EarlierHistory> {
  if (scope.earlier === undefined) {
    throw new Error(
      `prev${index}: ids name earlier sessions of a conversation, and this run did not say which conversation it is (no session key)`,
    );
  }
  const histories = await earlierHistories(scope);
  const found = histories.find((history) => history.index === index);
  if (found !== undefined) return found;
  throw new Error(
    histories.length === 0
      ? `prev${index}: this conversation has no earlier session stored`
      : `prev${index}: this conversation's earlier sessions are prev1 to prev${histories.length}`,
  );
}

/** A sentence for recall_search's description while earlier sessions can be reached. */
export function earlierAccessNote(scope: RecallScope): string {
  return scope.earlier === undefined
    ? ""
    : " It also searches this conversation's earlier sessions (before a /new or /reset), whose ids are " +
        "written prev1:m12 and prev1:sum_… (prev1 is the session just before this one).";
}

/** recall_read's and recall_describe's shorter word on the same ids. */
export function earlierIdsNote(scope: RecallScope): string {
  return scope.earlier === undefined ? "" : " Ids of earlier sessions keep their prefix (prev1:m12).";
}
