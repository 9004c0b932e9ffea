/**
 * The provider's prompt cache as the stored replies report it (`recorder/model-call-cache.ts`):
 * over a session's newest model calls, and around a compaction pass. Reads the store only, so the
 * CLI shows it from a read-only open while a gateway writes.
 */
import {
  type ModelCallCache,
  modelCallCache,
  type ProviderCacheFigures,
  sumModelCalls,
} from "../recorder/model-call-cache.js";
import type { LosslessStore, StoredCompactionPass, StoredMessage } from "../store/store.js";

/** Newest messages read for a session's cache figures. */
export const RECENT_MESSAGES_FOR_CACHE = 200;
/**
 * How long after a pass its first call is looked for. Providers keep a prompt cached for minutes
 * to an hour, so a call later than this misses whatever any pass did.
 */
const CALL_AFTER_PASS_WITHIN_MS = 3_600_000;
/** Messages read after a pass to find its first call (tool results come between calls). */
const MESSAGES_READ_AFTER_PASS = 128;

/** What a pass did to the provider's cache: the call before it and the first call after it. */
export interface PassCacheEffect {
  before?: ModelCallCache;
  after?: ModelCallCache;
}

/** The cache figures over the session's newest `RECENT_MESSAGES_FOR_CACHE` messages; undefined without calls. */
export async function readProviderCache(
  store: LosslessStore,
  sessionId: string,
  messageCount: number,
): Promise<(ProviderCacheFigures & { newest: ModelCallCache }) | undefined> {
  if (messageCount <= 0) return undefined;
  const first = Math.max(1, messageCount - RECENT_MESSAGES_FOR_CACHE + 1);
  const messages = await store.readMessageRange(sessionId, {
    ranges: [[first, messageCount]],
    limit: RECENT_MESSAGES_FOR_CACHE,
  });
  const calls = callsOf(messages);
  const newest = calls.at(-1);
  return newest === undefined ? undefined : { ...sumModelCalls(calls), newest };
}

/**
 * The pass's cache effect: the call before it (recorded with the pass) and the first call made
 * after it ended, within an hour. Empty for a pass recorded before calls were.
 */
export async function readPassCacheEffect(
  store: LosslessStore,
  pass: StoredCompactionPass,
): Promise<PassCacheEffect> {
  const ended = pass.startedAt + Math.ceil(pass.durationMs);
  const messages = await store.readMessageRange(pass.sessionId, {
    fromTime: ended,
    toTime: ended + CALL_AFTER_PASS_WITHIN_MS,
    limit: MESSAGES_READ_AFTER_PASS,
  });
  const [after] = callsOf(messages);
  return {
    ...(pass.lastCallBefore === undefined ? {} : { before: pass.lastCallBefore }),
    ...(after === undefined ? {} : { after }),
  };
}

/** The model calls among stored messages, in their order; a reply whose JSON does not parse is skipped. */
function callsOf(messages: readonly StoredMessage[]): ModelCallCache[] {
  const calls: ModelCallCache[] = [];
  for (const message of messages) {
    if (message.role !== "assistant") continue;
    const call = modelCallCache(parsed(message.json), message.createdAt);
    if (call !== undefined) calls.push(call);
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
