/**
 * The words of a pending user turn worth searching for: punctuation around words removed,
 * possessives folded ("Alice's" → "Alice"), English function words and duplicates dropped. Codes,
 * paths and identifiers (`NDL-7K2M9QXA`, `src/a.ts`, `ERR_42`) are kept as written, because the
 * full-text index matches them as phrases.
 */

const STOPWORDS = new Set(
  (
    "a about above after again against all am an and any are as at be because been before being below " +
    "between both but by can could did do does doing down during each few for from further had has have " +
    "having he her here hers herself him himself his how i if in into is it its itself just me more most " +
    "my myself no nor not now of off on once only or other our ours ourselves out over own same she " +
    "should so some such than that the their theirs them themselves then there these they this those " +
    "through to too under until up very was we were what when where which while who whom why will with " +
    "would you your yours yourself yourselves also please tell know think let us get got like one two " +
    "still well much many may might must shall yes ok okay"
  ).split(" "),
);

/** Whether `word` (lower-cased) is an English function word, never worth searching for. */
export function isStopword(word: string): boolean {
  return STOPWORDS.has(word);
}

/** Leading and trailing characters that are punctuation, not part of a word or code. */
const EDGE_PUNCTUATION = /^[\s"'`([{<«“‘.,;:!?*_~-]+|[\s"'`)\]}>»”’.,;:!?*_~-]+$/gu;
/** A possessive ending ("Alice's"), dropped from words searched for and indexed alike. */
export const POSSESSIVE = /['’]s$/iu;
const HAS_WORD_CHARACTER = /[\p{L}\p{N}]/u;
/**
 * A "word" longer than this is pasted data (a JSON line, a stack frame with its arguments), not a
 * term anyone types: searched whole it would be a phrase of dozens of tokens, slow to match and
 * matching nothing else. It is split at the characters that hold such data together.
 */
const MAX_WORD_CHARS = 64;
const DATA_SEPARATORS = /["'`{}[\](),;=<>|\\]+/u;

/**
 * Up to `limit` distinct search words of `text`, in the order written. When there are more, the
 * longest are kept (usually the rarest), so a long pasted prompt searches its most specific words.
 */
export function queryWords(text: string, limit: number): string[] {
  const seen = new Set<string>();
  const words: string[] = [];
  for (const raw of splitWords(text)) {
    const word = raw.replace(EDGE_PUNCTUATION, "").replace(POSSESSIVE, "");
    if (!HAS_WORD_CHARACTER.test(word)) continue;
    const folded = word.toLowerCase();
    if (STOPWORDS.has(folded) || seen.has(folded)) continue;
    if (word.length < 2 && !/\p{N}/u.test(word)) continue;
    seen.add(folded);
    words.push(word);
  }
  if (words.length <= limit) return words;
  // Longer words are usually rarer: keep those, in the order they were written.
  const kept = new Set(
    [...words]
      .map((word, index) => ({ word, index }))
      .sort((left, right) => right.word.length - left.word.length || left.index - right.index)
      .slice(0, limit)
      .map((entry) => entry.index),
  );
  return words.filter((_, index) => kept.has(index));
}

/** Whitespace-separated words, overlong ones split at data separators (a long path has none: it stays whole). */
function splitWords(text: string): string[] {
  return text.split(/\s+/u).flatMap((word) => {
    if (word.length <= MAX_WORD_CHARS) return [word];
    return word.split(DATA_SEPARATORS).filter((part) => part.length > 0);
  });
}
