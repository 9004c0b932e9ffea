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

/**
 * Whether a hit (`complete`, `score`, `key`) ranks above `other`: a complete match first, then a
 * higher score, then the newer message.
 */
export function ranksAbove(complete: boolean, score: number, key: number, other: RankedHit): boolean {
  if (complete !== other.complete) return complete;
  return score > other.score || (score === other.score && key > other.key);
}

/** Puts `hit` into `best` (kept in rank order, see `ranksAbove`, at most `limit` long). */
export function insertRanked(best: RankedHit[], hit: RankedHit, limit: number): void {
  let at = best.length;
  while (at > 0 && ranksAbove(hit.complete, hit.score, hit.key, best[at - 1] as RankedHit)) at--;
  best.splice(at, 0, hit);
  if (best.length > limit) best.pop();
}

/** What one search's scoring found, beyond the scores (see `SessionTerms.scoreRows`). */
export interface Scoring {
  /** Rows scored: the first this many of `scored`. */
  scored: number;
  /** The postings (rows, ascending) of each searched word some message the caller may be shown holds. */
  present: (readonly number[])[];
}

/**
 * The rows holding every present word among those `isScored` accepts (a complete match must be a
 * hit): the rows of the shortest list, looked up in the others by bisection. Checking each scored
 * row against every word it was not seen with in the walks (the cap leaves a common word's older
 * postings unread) cost 2–3 ms for a prompt of nine common words at 50,000 messages; this costs the
 * shortest list's length times a bisection per other word.
 */
export function completeRows(
  present: readonly (readonly number[])[],
  isScored: (row: number) => boolean,
): Set<number> {
  const complete = new Set<number>();
  if (present.length === 0) return complete;
  const lists = [...present].sort((left, right) => left.length - right.length);
  const [shortest, ...others] = lists as [readonly number[], ...(readonly number[])[]];
  for (const row of shortest) {
    if (isScored(row) && others.every((list) => indexOfSorted(list, row) >= 0)) complete.add(row);
  }
  return complete;
}

/** Where the ascending `values` hold `value`, or -1. */
export function indexOfSorted(values: readonly number[], value: number): number {
  let low = 0;
  let high = values.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((values[middle] as number) < value) low = middle + 1;
    else high = middle;
  }
  return low < values.length && values[low] === value ? low : -1;
}
