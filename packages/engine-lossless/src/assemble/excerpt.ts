/**
 * The part of a long message that answers a query: the window of `maxChars` characters that holds
 * the most distinct query words, its edges moved to whitespace so no word is cut. A 30 KB tool
 * output that holds the answer to a prompt can then be evidence, where whole it would never fit.
 * The excerpt is the message's own text, unchanged; where it sits is given so a reader can go on
 * with recall_read.
 */

export interface Excerpt {
  text: string;
  /** Character offsets of the excerpt in the whole text, `[from, to)`. */
  from: number;
  to: number;
}

/** Occurrences of each word looked at; a word in every line of a log says little about where. */
const MAX_OCCURRENCES = 64;
/** How far an edge may move back to reach whitespace. */
const EDGE_SLACK = 80;

/** The excerpt of `text` for `words` (matched case-insensitively); its opening when none occurs. */
export function excerptOf(text: string, words: readonly string[], maxChars: number): Excerpt {
  return excerpterOf(text, words)(maxChars);
}

/**
 * Excerpts of `text` for `words` at any width, the words found once: a caller narrowing an
 * excerpt to fit a token count asks again without searching the text again.
 */
export function excerpterOf(text: string, words: readonly string[]): (maxChars: number) => Excerpt {
  let occurrences: Occurrence[] | undefined;
  return (maxChars) => {
    if (text.length <= maxChars) return { text, from: 0, to: text.length };
    occurrences ??= occurrencesOf(text, words);
    const bestStart = bestWindowStart(occurrences, text.length, maxChars);
    const from = wholeCharacterStart(text, bestStart === 0 ? 0 : afterWhitespace(text, bestStart));
    const end = Math.min(text.length, bestStart + maxChars);
    const to = wholeCharacterEnd(text, end === text.length ? end : beforeWhitespace(text, end, from));
    return { text: text.slice(from, to), from, to };
  };
}

/**
 * Where the window holding the most distinct words starts. A window opens a quarter of its width
 * before an occurrence, so what precedes the match (the start of its sentence or line) comes
 * along. Occurrences are sorted and window starts follow them, so two edges moving forward count
 * every window in one pass.
 */
function bestWindowStart(occurrences: readonly Occurrence[], length: number, maxChars: number): number {
  const counts = new Map<number, number>();
  let bestStart = 0;
  let bestCount = 0;
  let leaving = 0;
  let joining = 0;
  for (const occurrence of occurrences) {
    const start = Math.max(0, Math.min(occurrence.at - Math.floor(maxChars / 4), length - maxChars));
    for (
      ;
      joining < occurrences.length && (occurrences[joining] as Occurrence).at < start + maxChars;
      joining++
    ) {
      const word = (occurrences[joining] as Occurrence).word;
      counts.set(word, (counts.get(word) ?? 0) + 1);
    }
    for (; leaving < joining && (occurrences[leaving] as Occurrence).at < start; leaving++) {
      const word = (occurrences[leaving] as Occurrence).word;
      const left = (counts.get(word) ?? 1) - 1;
      if (left === 0) counts.delete(word);
      else counts.set(word, left);
    }
    if (counts.size > bestCount) {
      bestCount = counts.size;
      bestStart = start;
    }
  }
  return bestStart;
}

/** `at`, moved past the second half of a surrogate pair (an emoji is never cut in two). */
function wholeCharacterStart(text: string, at: number): number {
  const code = text.charCodeAt(at);
  return code >= 0xdc00 && code <= 0xdfff ? at + 1 : at;
}

function wholeCharacterEnd(text: string, at: number): number {
  const code = text.charCodeAt(at - 1);
  return code >= 0xd800 && code <= 0xdbff ? at - 1 : at;
}

interface Occurrence {
  at: number;
  word: number;
}

/**
 * Where each word occurs as a whole word ("port" not in "import"), case-insensitively, at offsets
 * of the text as written. One case-insensitive pattern per word over the text itself: no
 * lower-cased copy of a 100 KB tool output ("İ" would change its length and shift every offset),
 * and 7 to 20 times faster on one than `indexOf` in such a copy (measured on a 200 KB log:
 * 0.05–0.18 ms against 1.2–1.6 ms for six words).
 */
function occurrencesOf(text: string, words: readonly string[]): Occurrence[] {
  const found: Occurrence[] = [];
  for (const [word, raw] of words.entries()) {
    if (raw.length === 0) continue;
    for (const at of wholeWordPlaces(text, raw)) found.push({ at, word });
  }
  return found.sort((left, right) => left.at - right.at);
}

/**
 * A letter or digit: what may not touch a whole word on either side (with `i`, as in the word's
 * own pattern, which also takes U+0345 for the ι it folds to). Compiled once, and checked by hand
 * at each match's edges: a Unicode property class costs about half a millisecond to
 * compile, so lookarounds in each word's pattern cost 0.6–0.9 ms per new query word, most of a
 * prompted assembly (measured: 5–8 ms to excerpt one message for a twelve-word prompt).
 */
const WORD_CHARACTER = /[\p{L}\p{N}]/iu;

/**
 * What `(?<![\p{L}\p{N}])word(?![\p{L}\p{N}])` with flags `giu` finds, without compiling that
 * pattern: a match whose edge touches a letter or digit is skipped, and the search resumes one code
 * point after its start, as the pattern's own search would.
 */
export function wholeWordPlaces(text: string, raw: string): number[] {
  if (raw.length === 0) return [];
  const pattern = new RegExp(raw.replace(/[.*+?^${}()|[\]\\]/gu, "\\$&"), "giu");
  const places: number[] = [];
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
    const at = match.index;
    if (touchesWord(text, at, at + match[0].length)) {
      pattern.lastIndex = at + ((text.codePointAt(at) ?? 0) > 0xffff ? 2 : 1);
      continue;
    }
    places.push(at);
    if (places.length === MAX_OCCURRENCES) break;
  }
  return places;
}

/** Whether the code point before `from` or the one at `to` is a letter or digit. */
function touchesWord(text: string, from: number, to: number): boolean {
  const after = text.codePointAt(to);
  if (after !== undefined && isWordCharacter(after)) return true;
  if (from === 0) return false;
  const last = text.charCodeAt(from - 1);
  const pairStart = from >= 2 && last >= 0xdc00 && last <= 0xdfff ? text.charCodeAt(from - 2) : -1;
  const before = pairStart >= 0xd800 && pairStart <= 0xdbff ? (text.codePointAt(from - 2) as number) : last;
  return isWordCharacter(before);
}

/** `WORD_CHARACTER` of one code point; ASCII by its code (most of what a log or code holds). */
function isWordCharacter(codePoint: number): boolean {
  if (codePoint < 0x80)
    return (
      (codePoint >= 0x30 && codePoint <= 0x39) ||
      (codePoint >= 0x41 && codePoint <= 0x5a) ||
      (codePoint >= 0x61 && codePoint <= 0x7a)
    );
  return WORD_CHARACTER.test(String.fromCodePoint(codePoint));
}

/** The first offset at or after `at` that follows whitespace (within the slack), else `at`. */
function afterWhitespace(text: string, at: number): number {
  for (let offset = at; offset < Math.min(text.length, at + EDGE_SLACK); offset++)
    if (/\s/u.test(text[offset - 1] ?? "")) return offset;
  return at;
}

/** The last offset at or before `at` that precedes whitespace (within the slack, after `floor`). */
function beforeWhitespace(text: string, at: number, floor: number): number {
  for (let offset = at; offset > Math.max(floor, at - EDGE_SLACK); offset--)
    if (/\s/u.test(text[offset] ?? "")) return offset;
  return at;
}
