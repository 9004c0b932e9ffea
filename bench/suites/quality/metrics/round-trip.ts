/**
 * M3, lossless round-trip: every original message must come back byte for byte (same canonical
 * JSON) from the engine's store after compaction, as a multiset: order is not part of this check
 * (M13 checks order), duplicates and strangers are counted separately.
 */
import type { AgentMessage } from "@clew/core";
import { messageHash } from "../../../metrics/message-hash.js";
import { share } from "./figure.js";

export interface RoundTripReport {
  originals: number;
  stored: number;
  /** Originals found byte-exact in the store. */
  exact: number;
  missing: number;
  /** Stored messages that are no original (changed or invented). */
  extra: number;
  /** Originals stored more than once (extra copies). */
  duplicates: number;
  exactShare: number;
}

export function compareRoundTrip(
  originals: readonly AgentMessage[],
  stored: readonly AgentMessage[],
): RoundTripReport {
  const wanted = countHashes(originals);
  const found = countHashes(stored);
  let exact = 0;
  let duplicates = 0;
  let extra = 0;
  for (const [hash, count] of wanted) exact += Math.min(count, found.get(hash) ?? 0);
  for (const [hash, count] of found) {
    const expected = wanted.get(hash) ?? 0;
    if (expected === 0) extra += count;
    else if (count > expected) duplicates += count - expected;
  }
  return {
    originals: originals.length,
    stored: stored.length,
    exact,
    missing: originals.length - exact,
    extra,
    duplicates,
    exactShare: share(exact, originals.length),
  };
}

function countHashes(messages: readonly AgentMessage[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const message of messages) {
    const hash = messageHash(message);
    counts.set(hash, (counts.get(hash) ?? 0) + 1);
  }
  return counts;
}
