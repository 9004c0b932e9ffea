/**
 * Stable message identity: the same message of the same session gets the same identity whichever
 * path brings it (ingest, ingestBatch, afterTurn, bootstrap) and however often, so storing by
 * identity makes ingestion idempotent by construction.
 *
 * identity = sha256(session id, sha256(canonical JSON), ordinal), where the ordinal counts the
 * messages identical to it (same canonical JSON) earlier in the same list. The JSON is hashed once;
 * counting identical messages by that digest keeps long messages out of map keys. Pi messages
 * carry timestamps, so two distinct messages are practically never identical; the ordinal keeps
 * two byte-identical messages of one list apart. Identical messages arriving in different calls
 * are the same message.
 */
import * as crypto from "node:crypto";
import type { AgentMessage } from "@clew/core";

/**
 * JSON with object keys sorted at every level and no whitespace, so equal values serialize
 * equally whatever their key order. Follows `JSON.stringify` otherwise (undefined members dropped,
 * `toJSON` honoured, non-finite numbers as null). Throws only where `JSON.stringify` throws
 * (cycles, BigInt).
 */
export function canonicalJson(value: unknown): string {
  // A sorted copy serialized without a replacer: JSON.stringify is much slower with one, and
  // faster than building the string here (it escapes long texts natively, in one pass).
  return JSON.stringify(sortedCopy(value, "")) ?? "null";
}

/**
 * What `JSON.stringify` with a key-sorting replacer would serialize: `toJSON` applied first (once,
 * as `JSON.stringify` does), then every object's keys in `sort()` order. Functions are resolved
 * here too, so the copy holds no `toJSON` for `JSON.stringify` to call a second time. Stored
 * identities depend on these exact bytes.
 */
function sortedCopy(value: unknown, key: string): unknown {
  if ((typeof value !== "object" || value === null) && typeof value !== "function") return value;
  const toJson = (value as { toJSON?: unknown }).toJSON;
  const resolved: unknown = typeof toJson === "function" ? toJson.call(value, key) : value;
  if (typeof resolved === "function") return undefined;
  if (typeof resolved !== "object" || resolved === null) return resolved;
  if (Array.isArray(resolved)) return resolved.map(sortedItem);
  const record = resolved as Record<string, unknown>;
  const sorted: Record<string, unknown> = {};
  for (const name of sortedKeys(record)) sorted[name] = sortedCopy(record[name], name);
  return sorted;
}

/** Keys beyond this many are sorted by `Array.prototype.sort`. */
const INSERTION_SORT_KEYS = 24;

/**
 * `Object.keys(record)` in `sort()` order (UTF-16 code units, which `>` compares too). A message's
 * objects have a handful of keys: sorting them in place by insertion allocates nothing, where the
 * built-in sort allocated about 3 KB per message (a sixth of what a bootstrap allocates).
 */
function sortedKeys(record: Record<string, unknown>): string[] {
  const keys = Object.keys(record);
  if (keys.length > INSERTION_SORT_KEYS) return keys.sort();
  for (let index = 1; index < keys.length; index++) {
    const key = keys[index] as string;
    let at = index - 1;
    for (; at >= 0 && (keys[at] as string) > key; at--) keys[at + 1] = keys[at] as string;
    keys[at + 1] = key;
  }
  return keys;
}

/** `sortedCopy` of an array item (a `map` callback: holes stay holes, as JSON.stringify expects). */
function sortedItem(item: unknown, index: number): unknown {
  return sortedCopy(item, String(index));
}

export interface IdentifiedMessage {
  message: AgentMessage;
  /** Canonical JSON: what the store keeps and returns. */
  json: string;
  identity: string;
}

/**
 * Identities of `messages` as one list (see the file comment for the ordinal). A long list may be
 * identified in parts that share `seen` (digests met so far, with their counts): the parts then
 * get the identities the whole list would.
 */
export function identifyMessages(
  sessionId: string,
  messages: readonly AgentMessage[],
  seen: Map<string, number> = new Map(),
): IdentifiedMessage[] {
  return messages.map((message) => {
    const json = canonicalJson(message);
    const digest = sha256(json);
    const ordinal = seen.get(digest) ?? 0;
    seen.set(digest, ordinal + 1);
    const identity = sha256(`${sessionId}\0${digest}\0${ordinal}`);
    return { message, json, identity };
  });
}

/**
 * One-shot hashing (`crypto.hash`, Node 20.12 and later) skips the Hash object `createHash`
 * makes: measured 1.1 against 1.5–3.6 µs per message JSON. Earlier Node 20 releases, which Clew
 * supports too, take `createHash`; both give the same hex digest.
 */
const oneShotHash = (crypto as { hash?: (algorithm: string, data: string) => string }).hash;

/** Hex sha256 of `text`. */
function sha256(text: string): string {
  return oneShotHash === undefined
    ? crypto.createHash("sha256").update(text).digest("hex")
    : oneShotHash("sha256", text);
}

/** sha256 of the canonical JSON: how tests and tools compare a message with the original. */
export function messageDigest(message: unknown): string {
  return sha256(canonicalJson(message));
}
