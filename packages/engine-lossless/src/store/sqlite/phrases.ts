/**
 * Phrase terms for term selection (`term-selection.ts`): which terms are phrases, the budget of
 * phrases one query matches, and the run of words a long phrase is matched by. A pasted path,
 * timestamp or id costs more to match than a word: FTS5 walks the match list of each of its words.
 */
import { matchExpression } from "./match-expression.js";
import type { CountedTerm } from "./term-selection.js";

/** Terms of this many words or more are read as id lists by `selectCounted` (see `CountedTerm`). */
export const PHRASE_WORDS = 2;
/** Words of a phrase `selectCounted` matches at most (see `narrowed`). */
export const MAX_PHRASE_WORDS = 4;
/** A narrowed phrase with more matches than this is matched whole after all (see `phraseIds`). */
export const MAX_NARROWED_MATCHES = 50;
/**
 * Terms whose words `WORD_RUN` splits as FTS5's tokenizer does: printable ASCII. Elsewhere the
 * two can differ (unicode61 keeps combining marks inside a word), and a run cut at the wrong
 * place could match nothing.
 */
export const NARROWABLE = /^[\x20-\x7e]+$/;

/**
 * Phrases `selectCounted` matches at most per query, and phrases it tries at most (a phrase whose
 * words are all there but never side by side matches nothing). Each match costs a pass over the
 * match lists of its words, and a pasted path's words are common (at 50k messages 0.4–2 ms per
 * path, against microseconds for a rare word), while a pasted stack trace holds a dozen paths that
 * mostly find the same few messages. Phrases are tried most selective first (see `byBound`).
 */
const MAX_MATCHED_PHRASES = 4;
const MAX_TRIED_PHRASES = 8;

/** A phrase with a rare word, waiting to be matched: its words and their counts. */
export interface PhraseToMatch {
  term: string;
  index: number;
  words: readonly string[];
  /** Undefined for a word not counted (see `wordCounts`). */
  counts: ReadonlyArray<number | undefined>;
  /**
   * The count of its last rare word (see `wordCounts`): no more messages match the phrase, when its
   * words are the tokenizer's (`NARROWABLE`). Elsewhere a word split off at a combining mark can
   * count 0 while the phrase matches hundreds, so the bound is unknown (infinite).
   */
  bound: number;
}

/** A phrase's run of words that `selectCounted` matches instead (see `narrowed`), and its rarest word's count. */
export interface PhraseRun {
  text: string;
  fewest: number;
}

/** Phrases a query has tried and matched so far, against `MAX_TRIED_PHRASES` and `MAX_MATCHED_PHRASES`. */
export class PhraseBudget {
  private tried = 0;
  private matched = 0;

  spent(): boolean {
    return this.matched >= MAX_MATCHED_PHRASES || this.tried >= MAX_TRIED_PHRASES;
  }

  /** Records a phrase tried, and returns it. */
  paid(entry: CountedTerm): CountedTerm {
    this.tried += 1;
    if (entry.matches > 0) this.matched += 1;
    return entry;
  }
}

/** Phrases in the order they are tried: the smallest bound on their matches first, then as written. */
export function byBound(phrases: readonly PhraseToMatch[]): PhraseToMatch[] {
  return [...phrases].sort((left, right) => left.bound - right.bound || left.index - right.index);
}

/** A term of several `words`, matched as a phrase (and read as an id list, see `CountedTerm`). */
export function isPhrase(term: string, words: readonly string[]): boolean {
  return words.length >= PHRASE_WORDS && matchExpression([term]) !== undefined;
}
/** Runs of letters and digits: roughly the words FTS5's tokenizer makes of a term. */
export const WORD_RUN = /[\p{L}\p{N}]+/gu;

/**
 * Of a phrase's `words` with their `counts`, the run of `MAX_PHRASE_WORDS` words with the fewest
 * matches (the later run among equals: a path ends with its file name), and its rarest word's
 * count; undefined when no word reaches `cap` (every word is rare: the whole phrase is cheap).
 */
export function rarestRun(
  words: readonly string[],
  counts: readonly number[],
  cap: number,
): PhraseRun | undefined {
  if (!counts.some((count) => count >= cap)) return undefined;
  let best = 0;
  let fewest = Number.POSITIVE_INFINITY;
  for (let start = 0; start + MAX_PHRASE_WORDS <= words.length; start++) {
    let matches = 0;
    for (let at = start; at < start + MAX_PHRASE_WORDS; at++) matches += counts[at] as number;
    if (matches <= fewest) {
      fewest = matches;
      best = start;
    }
  }
  return {
    text: words.slice(best, best + MAX_PHRASE_WORDS).join(" "),
    fewest: Math.min(...counts.slice(best, best + MAX_PHRASE_WORDS)),
  };
}
