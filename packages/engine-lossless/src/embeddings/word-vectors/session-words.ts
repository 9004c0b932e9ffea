/**
 * How the soft term index reads text: which words of a stored message it indexes, and which words
 * of a query it searches, both through the same rule (`termOf`), so that a query word meets the
 * word a message wrote.
 */
import { storedReadingBody } from "../../recall/message-text.js";
import { isStopword, POSSESSIVE, queryWords } from "../../recall/query-words.js";
import type { StoredMessage } from "../../store/store.js";

/**
 * Characters of a message that are indexed: a longer tool output counts by its opening. At 4,000,
 * a fact deep in a long output was out of reach (M4, needles verbatim after five compactions: 70
 * against 74 % at 64,000, and 100 % with complete matches first, see `SessionTerms`); indexing 50,000 messages took
 * 2.7 instead of 2.0 s and 25 instead of 21 MB.
 */
const MAX_TEXT_CHARS = 64_000;
const WORD = /[\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*/gu;

/** The words (lower-cased, function words still in) of the indexed part of `text`. */
export function indexedWords(text: string): string[] {
  return text.slice(0, MAX_TEXT_CHARS).toLowerCase().match(WORD) ?? [];
}

/**
 * A query's distinct terms (see `termOf`), in order: its plain words only. A code or path
 * (`src/a.ts`, `ERR_42`) would be split here into fragments matched loosely by meaning ("log" for
 * `logs/huge.log`); it is left to the full-text index, which matches it as written.
 */
export function queryWordsOf(query: string): string[] {
  const terms = new Set<string>();
  for (const word of queryWords(query, Number.MAX_SAFE_INTEGER)) {
    const plain = plainWord(word);
    const term = plain === undefined ? undefined : termOf(plain);
    if (term !== undefined) terms.add(term);
  }
  return [...terms];
}

/** `word` lower-cased when it is one word as this index reads text, else undefined (a code, a path). */
export function plainWord(word: string): string | undefined {
  const folded = word.toLowerCase();
  const tokens = folded.match(WORD);
  return tokens?.length === 1 && tokens[0] === folded ? folded : undefined;
}

/**
 * The term a lower-cased word is indexed and searched as: possessive dropped ("maya's" → "maya");
 * none for a function word or a single letter. Messages and queries go through the same rule.
 */
export function termOf(word: string): string | undefined {
  const term = word.replace(POSSESSIVE, "");
  return isStopword(term) || (term.length < 2 && !/\p{N}/u.test(term)) ? undefined : term;
}

/** A stored message's readable text; a row that cannot be read counts as empty (never blocks the index). */
export function readableText(stored: StoredMessage): string {
  try {
    return storedReadingBody(stored);
  } catch {
    return "";
  }
}
