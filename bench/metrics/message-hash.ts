/**
 * Canonical JSON and hashes of messages: the identity the quality suite compares messages by.
 * Keys are sorted at every level, so two objects with the same fields in a different order (a
 * message read back from JSONL, say) hash the same; `undefined` fields are left out as JSON does.
 */
import { createHash } from "node:crypto";

/** JSON with object keys sorted at every depth. Throws TypeError for cycles and BigInt, as JSON does. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

export function sha256Hex(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

/** `sha256(canonicalJson(message))`. */
export function messageHash(message: unknown): string {
  return sha256Hex(canonicalJson(message));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value !== "object" || value === null) return value;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort())
    sorted[key] = sortKeys((value as Record<string, unknown>)[key]);
  return sorted;
}
