/**
 * The identifier kinds that are always one whole word, found by one scan over a text's words
 * instead of a regex each (part of `identifiers.ts`' extraction, same rules and same matches).
 *
 * A word here is what `\b` delimits: a maximal run of `[A-Za-z0-9_]` (ASCII only: none of the
 * patterns has the `u` flag). Each kind below was a pattern made only of word characters between
 * two `\b`, so every match it could have was exactly one word: `\b[0-9a-f]{7,}\b` (hex ids),
 * `\b[A-Z]{1,5}\d{3,6}\b` (error codes), `\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b` (ALL_CAPS names),
 * `\bE(?:NOENT|…)\b` (errno names), and `_[A-Za-z0-9]{6,}\b` with 2 to 12 lowercase letters
 * before the underscore at a word boundary (provider ids). Why: a pattern that starts at a
 * character class is tried at every position of the text; the hex-id pattern alone cost more than
 * the ten cheapest others together, and compaction extracts from every message it covers.
 */

/** A match: `[start, end)` of the text, and the identifier it gives. */
export interface WordMatch {
  start: number;
  end: number;
  text: string;
}

const WORD = 1;
const HEX = 2;
const DIGIT = 4;
const UPPER = 8;
const LOWER = 16;
const UNDERSCORE = 32;
/** a-f and A-F. */
const HEX_LETTER = 64;

/** Flags of each ASCII character; 0 for the characters that are not word characters. */
const CHARACTER_FLAGS = new Uint8Array(128);
for (let code = 0; code < 128; code++) {
  const character = String.fromCharCode(code);
  let flags = 0;
  if (/\d/.test(character)) flags |= WORD | DIGIT | HEX;
  if (/[A-Z]/.test(character)) flags |= WORD | UPPER;
  if (/[a-z]/.test(character)) flags |= WORD | LOWER;
  if (/[a-f]/i.test(character)) flags |= HEX | HEX_LETTER;
  if (character === "_") flags |= WORD | UNDERSCORE;
  CHARACTER_FLAGS[code] = flags;
}

// Shortest word any kind accepts ("A_B"); shorter words are skipped without a look.
const SHORTEST_WORD = 3;
const HEX_ID_MIN = 7;

const ERROR_CODE = /^[A-Z]{1,5}\d{3,6}$/;
const ALL_CAPS_NAME = /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$/;
const PREFIXED_ID = /^[a-z]{2,12}_[A-Za-z0-9]{6,}$/;
const ERRNO_NAMES: ReadonlySet<string> = new Set(
  (
    "NOENT|ACCES|PERM|EXIST|ISDIR|NOTDIR|NOTEMPTY|ADDRINUSE|ADDRNOTAVAIL|CONNREFUSED|CONNRESET|CONNABORTED|" +
    "TIMEDOUT|PIPE|MFILE|NOSPC|BUSY|AGAIN|INVAL|NOTFOUND|HOSTUNREACH|NETUNREACH|ROFS|XDEV|LOOP|NAMETOOLONG"
  )
    .split("|")
    .map((name) => `E${name}`),
);

/** Appends a match for every word of `text` that is an identifier of one of these kinds. */
export function collectWordIdentifiers(text: string, matches: WordMatch[]): void {
  const length = text.length;
  let index = 0;
  while (index < length) {
    const code = text.charCodeAt(index);
    if (code >= 128 || CHARACTER_FLAGS[code] === 0) {
      index++;
      continue;
    }
    const start = index;
    // What every character of the word has, and what some character has.
    let every = 0xff;
    let some = 0;
    for (; index < length; index++) {
      const next = text.charCodeAt(index);
      const flags = next < 128 ? (CHARACTER_FLAGS[next] as number) : 0;
      if (flags === 0) break;
      every &= flags;
      some |= flags;
    }
    if (index - start >= SHORTEST_WORD && isIdentifierWord(text, start, index, every, some)) {
      matches.push({ start, end: index, text: text.slice(start, index) });
    }
  }
}

/** Whether the word `[start, end)` is an identifier; `every`/`some`: its characters' flags. */
function isIdentifierWord(text: string, start: number, end: number, every: number, some: number): boolean {
  // Hex ids: at least 7 hex characters with a digit and a letter ("deadbeef" and "1234567" alone
  // are too likely to be a word or a number).
  if ((every & HEX) !== 0 && end - start >= HEX_ID_MIN && (some & DIGIT) !== 0 && (some & HEX_LETTER) !== 0)
    return true;
  const first = CHARACTER_FLAGS[text.charCodeAt(start)] as number;
  if ((first & UPPER) !== 0) {
    if ((some & LOWER) !== 0) return false;
    const word = text.slice(start, end);
    // ALL_CAPS names with an underscore: environment variables (OPENAI_API_KEY) and error codes
    // (ERR_MODULE_NOT_FOUND).
    if ((some & UNDERSCORE) !== 0) return ALL_CAPS_NAME.test(word);
    // Letter-and-digit error codes (E1234, TS2345, CS0103) and POSIX error names (ENOENT).
    return ERROR_CODE.test(word) || ERRNO_NAMES.has(word);
  }
  // Provider ids: toolu_01Kae6sJBexjQUHEpDA9f5Uh, call_abc123, resp_68a1…: a lowercase prefix, an
  // underscore, then at least six letters and digits including a digit.
  if ((first & LOWER) !== 0 && (some & UNDERSCORE) !== 0 && (some & DIGIT) !== 0)
    return PREFIXED_ID.test(text.slice(start, end));
  return false;
}
