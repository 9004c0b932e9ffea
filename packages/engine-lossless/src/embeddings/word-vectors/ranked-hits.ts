/**
 * The order of a soft term search's hits while the best are picked: complete matches (a message
 * holding every searched word of a long enough query, see `SessionTerms`) first, then the higher
 * score, then the newer message.
 */
import type { SearchHit } from "../../store/store.js";

/** A hit while it is ranked: whether it holds every searched word of a long enough query. */
export interface RankedHit extends SearchHit<number> {
  complete: boolean;
}

/** Whether `hit` ranks above `other`: a complete match first, then a higher score, then newer. */
export function ranksAbove(hit: RankedHit, other: RankedHit): boolean {
  if (hit.complete !== other.complete) return hit.complete;
  return hit.score > other.score || (hit.score === other.score && hit.key > other.key);
}

/** Puts `hit` into `best` (kept in rank order, see `ranksAbove`, at most `limit` long). */
export function insertRanked(best: RankedHit[], hit: RankedHit, limit: number): void {
  let at = best.length;
  while (at > 0 && ranksAbove(hit, best[at - 1] as RankedHit)) at--;
  best.splice(at, 0, hit);
  if (best.length > limit) best.pop();
}
