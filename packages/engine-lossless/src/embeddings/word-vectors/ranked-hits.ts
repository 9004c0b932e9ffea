/**
 * The order of a soft term search's hits while the best are picked: complete matches (a message
 * holding every searched word of a long enough query, see `SessionTerms`) first, then the higher
 * score, then the newer message; and how a message is found complete.
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

/** What one search's scoring found, beyond the scores (see `SessionTerms.scoreRows`). */
export interface Scoring {
  /** Rows scored: the first this many of `scored`. */
  scored: number;
  /** Searched words that some message the caller may be shown holds. */
  present: number;
  /** Of those words, the ones whose walk the cap ended: their postings before `end` were not read. */
  unreached: UnreachedPostings[];
}

export interface UnreachedPostings {
  postings: readonly number[];
  end: number;
}

/**
 * Whether `row` holds every present word: `counted` of them were seen by the walks, and a word
 * whose walk the cap ended may hold it among the postings it did not read (found by bisection:
 * postings are in row order).
 */
export function holdsEvery(row: number, counted: number, scoring: Scoring): boolean {
  if (counted === scoring.present) return true;
  if (counted + scoring.unreached.length < scoring.present) return false;
  let held = counted;
  for (const { postings, end } of scoring.unreached) if (includesSorted(postings, end, row)) held++;
  return held === scoring.present;
}

/** Whether the first `end` entries of the ascending `values` include `value`. */
function includesSorted(values: readonly number[], end: number, value: number): boolean {
  let low = 0;
  let high = end;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((values[middle] as number) < value) low = middle + 1;
    else high = middle;
  }
  return low < end && values[low] === value;
}
