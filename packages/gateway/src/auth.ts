/**
 * Bearer-token checks. Tokens are compared in constant time over SHA-256 digests, so neither the
 * content nor the length of the configured token leaks through response timing.
 */
import { createHash, timingSafeEqual } from "node:crypto";

/** True when `presented` equals `expected`; never short-circuits on the first differing byte. */
export function tokensMatch(presented: string | undefined, expected: string): boolean {
  if (presented === undefined) return false;
  return timingSafeEqual(digest(presented), digest(expected));
}

/** The token of an `Authorization: Bearer <token>` header, or undefined for any other shape. */
export function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

function digest(value: string): Buffer {
  return createHash("sha256").update(value, "utf8").digest();
}
