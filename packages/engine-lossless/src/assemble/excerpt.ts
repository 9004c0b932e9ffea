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
  if (text.length <= maxChars) return { text, from: 0, to: text.length };
  const occurrences = occurrencesOf(text, words);
  let bestStart = 0;
  let bestCount = 0;
  // A window opens a quarter of its width before an occurrence, so what precedes the match (the
  // start of its sentence or line) comes along.
  for (const occurrence of occurrences) {
    const start = Math.max(0, Math.min(occurrence.at - Math.floor(maxChars / 4), text.length - maxChars));
    const count = distinctWithin(occurrences, start, start + maxChars);
    if (count > bestCount) {
      bestCount = count;
      bestStart = start;
    }
  }
  const from = wholeCharacterStart(text, bestStart === 0 ? 0 : afterWhitespace(text, bestStart));
  const end = Math.min(text.length, bestStart + maxChars);
  const to = wholeCharacterEnd(text, end === text.length ? end : beforeWhitespace(text, end, from));
  return { text: text.slice(from, to), from, to };
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
 * Where each word occurs as a whole word ("port" not in "import"), case-insensitively, in `text`
 * itself (lower-casing can change a text's length, and so every offset after it).
 */
function occurrencesOf(text: string, words: readonly string[]): Occurrence[] {
  const found: Occurrence[] = [];
  for (const [word, raw] of words.entries()) {
    if (raw.length === 0) continue;
    const escaped = raw.replace(/[.*+?^${}()|[\]\\]/gu, "\\$&");
    const pattern = new RegExp(`(?<![\\p{L}\\p{N}])${escaped}(?![\\p{L}\\p{N}])`, "giu");
    let seen = 0;
    for (const match of text.matchAll(pattern)) {
      found.push({ at: match.index, word });
      if (++seen === MAX_OCCURRENCES) break;
    }
  }
  return found.sort((left, right) => left.at - right.at);
}

function distinctWithin(occurrences: readonly Occurrence[], start: number, end: number): number {
  const words = new Set<number>();
  for (const occurrence of occurrences) {
    if (occurrence.at >= end) break;
    if (occurrence.at >= start) words.add(occurrence.word);
  }
  return words.size;
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
