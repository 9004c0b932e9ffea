/**
 * The provider's prompt cache as the stored replies report it (`recorder/model-call-cache.ts`):
 * over a session's newest model calls, and around a compaction pass. Reads the store only (message
 * heads first, then the few replies chosen), so the CLI shows it from a read-only open while a
 * gateway writes.
 */
import {
  type ModelCallCache,
  modelCallCache,
  type ProviderCacheFigures,
  sumModelCalls,
} from "../recorder/model-call-cache.js";
import type { LosslessStore, StoredCompactionPass, StoredMessageHead } from "../store/store.js";

/** Newest messages whose replies make a session's cache figures. */
export const RECENT_MESSAGES_FOR_CACHE = 200;
/**
 * How far from a pass its calls are looked for. Providers keep a prompt cached for 5 to 10
 * minutes unless asked for longer, so a call further away reads nothing whatever a pass did.
 */
export const PASS_CALL_WINDOW_MS = 10 * 60_000;
/** Heads read per step after a pass (the running turn's steps, then the turns after it). */
const HEADS_PAGE = 256;
const HEADS_PAGES_AFTER = 8;
/** Heads read before a pass for the call before it. */
const HEADS_BEFORE = 64;
/**
 * Replies read on each side of a pass: a failed call (a rate limit, an abort) is stored as a
 * reply without usage, and the call that counts is the next one with usage.
 */
const CANDIDATES = 4;

/**
 * What a pass did to the provider's cache: the newest call made before it started and the first
 * call made after it ended, each within `PASS_CALL_WINDOW_MS` (calls whose reply reported no
 * usage, such as failed ones, are passed over).
 */
export interface PassCacheEffect {
  before?: ModelCallCache;
  after?: ModelCallCache;
}

/** The cache figures over the session's newest `RECENT_MESSAGES_FOR_CACHE` messages; undefined without calls. */
export async function readProviderCache(
  store: LosslessStore,
  sessionId: string,
  messageCount: number,
): Promise<ProviderCacheFigures | undefined> {
  if (messageCount <= 0) return undefined;
  // Seqs run from 1 without gaps: messages are never deleted one by one.
  const heads = await readHeads(store, sessionId, messageCount - RECENT_MESSAGES_FOR_CACHE + 1, messageCount);
  const calls = [...(await readCalls(store, sessionId, heads.filter(isReply))).values()];
  return calls.length === 0 ? undefined : sumModelCalls(calls);
}

/**
 * The pass's cache effect. The call before it may have been stored after it: a compaction in the
 * middle of a turn (an overflow) runs before the host stores the turn. Empty for a pass recorded
 * without `newestSeq` (an older version, an empty view).
 */
export async function readPassCacheEffect(
  store: LosslessStore,
  pass: StoredCompactionPass,
): Promise<PassCacheEffect> {
  const { newestSeq, sessionId, startedAt } = pass;
  if (newestSeq === undefined) return {};
  const ended = startedAt + Math.ceil(pass.durationMs);
  const earlier = await readHeads(store, sessionId, newestSeq - HEADS_BEFORE + 1, newestSeq);
  const before = earlier.filter((head) => isReply(head) && head.createdAt < startedAt);
  const after: StoredMessageHead[] = [];
  for (let page = 0; page < HEADS_PAGES_AFTER && after.length < CANDIDATES; page++) {
    const first = newestSeq + 1 + page * HEADS_PAGE;
    const heads = await readHeads(store, sessionId, first, first + HEADS_PAGE - 1);
    for (const head of heads) {
      if (!isReply(head)) continue;
      if (head.createdAt < startedAt) before.push(head);
      else if (head.createdAt >= ended) after.push(head);
    }
    const last = heads.at(-1);
    if (last === undefined || last.createdAt > ended + PASS_CALL_WINDOW_MS) break;
  }
  const beforeCandidates = before
    .filter((head) => startedAt - head.createdAt <= PASS_CALL_WINDOW_MS)
    .sort((left, right) => right.createdAt - left.createdAt || right.seq - left.seq)
    .slice(0, CANDIDATES);
  const afterCandidates = after
    .filter((head) => head.createdAt - ended <= PASS_CALL_WINDOW_MS)
    .sort((left, right) => left.createdAt - right.createdAt || left.seq - right.seq)
    .slice(0, CANDIDATES);
  const calls = await readCalls(store, sessionId, [...beforeCandidates, ...afterCandidates]);
  const firstCall = (heads: readonly StoredMessageHead[]) =>
    heads.map((head) => calls.get(head.seq)).find((call) => call !== undefined);
  const beforeCall = firstCall(beforeCandidates);
  const afterCall = firstCall(afterCandidates);
  return {
    ...(beforeCall === undefined ? {} : { before: beforeCall }),
    ...(afterCall === undefined ? {} : { after: afterCall }),
  };
}

export function isEmptyCacheEffect(effect: PassCacheEffect): boolean {
  return effect.before === undefined && effect.after === undefined;
}

function isReply(head: StoredMessageHead): boolean {
  return head.role === "assistant";
}

/** Heads of the messages with seqs `first..last` (clamped at 1) that exist, in seq order. */
function readHeads(
  store: LosslessStore,
  sessionId: string,
  first: number,
  last: number,
): Promise<StoredMessageHead[]> {
  const from = Math.max(1, first);
  if (last < from) return Promise.resolve([]);
  return store.readMessageHeads(
    sessionId,
    Array.from({ length: last - from + 1 }, (_, index) => from + index),
  );
}

/** The calls of these replies by seq, in seq order; a reply without usage (or whose JSON does not parse) has none. */
async function readCalls(
  store: LosslessStore,
  sessionId: string,
  replies: readonly StoredMessageHead[],
): Promise<Map<number, ModelCallCache>> {
  const calls = new Map<number, ModelCallCache>();
  if (replies.length === 0) return calls;
  const messages = await store.readMessages(
    sessionId,
    replies.map((head) => head.seq),
  );
  for (const message of messages) {
    const call = modelCallCache(parsed(message.json), message.createdAt);
    if (call !== undefined) calls.set(message.seq, call);
  }
  return calls;
}

function parsed(json: string): unknown {
  try {
    return JSON.parse(json);
  } catch {
    return undefined;
  }
}
