/**
 * Opaque identifiers a summary must keep verbatim (paths, URLs, hashes, ids, ports, error codes,
 * versions, quantities, commands), found by code so a summarizer that paraphrases or drops one
 * can be corrected (`ensureIdentifiers`). A model never decides what counts as an identifier.
 *
 * How extraction works: every pattern below is run over the text; where matches overlap, the one
 * that starts first wins (the longer one on a tie), so a path inside a URL or a hash inside a path
 * is not listed twice. Matches are trimmed of trailing punctuation, deduplicated and returned in
 * order of first appearance.
 *
 * Speed (anchors are extracted from every message a compaction covers): a pattern is not run over
 * a text that lacks what each of its matches contains (`requires`), and the most frequent ones
 * start at a literal inside the identifier and find its beginning by hand (`lead`), because the
 * regex engine skips ahead to a literal far faster than it tries a character class at every
 * position. Both leave the result exactly as the plain patterns would. The kinds that are always
 * one whole word are found by one scan over the words (`word-identifiers.ts`), and a text read
 * again soon (a summarizer reading the messages compaction just anchored) is answered from a
 * bounded cache keyed by the text.
 */
import type { AgentMessage } from "../messages.js";
import { readableTextParts } from "../tokens/message-text.js";
import { collectWordIdentifiers } from "./word-identifiers.js";

interface IdentifierPattern {
  /** Names the kind, for readers of this file; not part of the result. */
  kind: string;
  /** Must have the `g` flag. */
  pattern: RegExp;
  /** Capture group holding the identifier; 0 = the whole match. */
  group?: number;
  /**
   * For a pattern written to start at a literal inside the identifier: how many characters before
   * `index` belong to the identifier, or -1 when there is no identifier there. Only for patterns
   * where no identifier can start inside a match whose lead is rejected (scanning resumes after it).
   */
  lead?: (text: string, index: number) => number;
  /** Rejects matches the regex alone cannot tell apart from prose. */
  accept?: (text: string) => boolean;
  /** Text, or a pattern, that every match (every accepted one, for `accept`) contains. */
  requires?: string | RegExp;
}

// Characters allowed in one path segment: letters, digits, `_ . @ % + = ~ -`.
const SEGMENT = String.raw`[\w.@%+=~-]`;

const HTTP_REASONS =
  "Bad Request|Unauthorized|Forbidden|Not Found|Method Not Allowed|Conflict|Gone|Payload Too Large|" +
  "Unprocessable Entity|Too Many Requests|Internal Server Error|Bad Gateway|Service Unavailable|Gateway Timeout";

// Units after a number. Multi-letter units may follow a space ("128 MB"); single letters must be
// glued to the number ("30s", "5m", "128k") because "5 s" or "2 d" in prose is usually not a unit.
const SPACED_UNITS =
  "[KMGTP]i?B|kB|bytes?|ms|µs|us|ns|secs?|seconds?|mins?|minutes?|hrs?|hours?|days?|%|px|[kMG]?Hz|tokens|fps";
const GLUED_UNITS = "[KMGT]|k|s|m|h|d|B";
const NUMBER = String.raw`\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?`;

const PATTERNS: readonly IdentifierPattern[] = [
  // URLs with a scheme; the path, query and fragment run to the next space, quote or bracket.
  { kind: "url", pattern: /\b(?:https?|wss?|ftp|file|ssh|git):\/\/[^\s<>"'`]+/g, requires: "://" },
  // Windows paths: C:\Users\me\file.txt (stops at a space).
  { kind: "windows-path", pattern: /\b[A-Za-z]:\\[^\s"'<>|*?`]*/g, requires: ":\\" },
  // Home-relative paths: ~/.config/clew.json
  {
    kind: "home-path",
    pattern: new RegExp(String.raw`(?<![\w~])~\/${SEGMENT}+(?:\/${SEGMENT}+)*\/?`, "g"),
    requires: "~/",
  },
  // Absolute paths: /etc/hosts, /compact. Not after a word character ("km/h", "and/or"), "<" (a
  // closing HTML tag) or ")" (a sed expression such as s/a/b/g).
  {
    kind: "absolute-path",
    pattern: new RegExp(String.raw`(?<![\w.:/~\\<)-])\/${SEGMENT}+(?:\/${SEGMENT}+)*\/?`, "g"),
    accept: hasLetter,
    requires: "/",
  },
  // Relative paths with a slash: src/index.ts, ./run.sh, @scope/pkg. See `isLikelyRelativePath`.
  // Written from the first slash on; `segmentBefore` finds the first segment, which must not
  // follow a segment character, a slash or a backslash.
  {
    kind: "relative-path",
    pattern: new RegExp(String.raw`(?:\/${SEGMENT}+)+\/?`, "g"),
    lead: segmentBefore,
    accept: isLikelyRelativePath,
  },
  // UUIDs, from the first hyphen on, with the 8 hex digits before it at a word boundary.
  {
    kind: "uuid",
    pattern: /-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi,
    lead: (text, index) => wordBefore(text, index, HEX_DIGIT, 8, 8),
  },
  // Codes and tickets with a hyphen: NDL-7K2M9QXA, JIRA-1234, ORA-00942 (must contain a digit).
  {
    kind: "code",
    pattern: /\b[A-Z][A-Z0-9]{1,9}-[A-Z0-9]{3,}\b/g,
    accept: (text) => /\d/.test(text),
    requires: /-[A-Z0-9]{3}/,
  },
  // host:port, with a hostname, a dotted name or an IPv4 address.
  {
    kind: "host-port",
    pattern: /\b(?:localhost|(?:\d{1,3}\.){3}\d{1,3}|[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+):\d{2,5}\b/g,
    accept: (text) => Number(text.slice(text.lastIndexOf(":") + 1)) <= 65_535,
    requires: /:\d\d/,
  },
  // IPv4 addresses, optionally with a CIDR suffix; every octet must be at most 255.
  {
    kind: "ipv4",
    pattern: /\b(?:\d{1,3}\.){3}\d{1,3}(?:\/\d{1,2})?\b/g,
    accept: hasValidOctets,
    requires: /\.\d{1,3}\.\d/,
  },
  // HTTP client and server errors: "HTTP 404", "HTTP/1.1 503", "status 429", "502 Bad Gateway".
  { kind: "http-status", pattern: /\b(?:HTTP(?:\/\d(?:\.\d)?)?|[Ss]tatus(?: code)?:?) ?[45]\d\d\b/g },
  { kind: "http-status", pattern: new RegExp(String.raw`\b[45]\d\d (?:${HTTP_REASONS})\b`, "g") },
  // Versions: v1.2.3, 0.73.1, 2.0.0-beta.2, v20, v1.2 (a bare "1.2" is too often a plain number).
  // Not part of a longer dotted number (999.1.1.1 is neither a version nor an address).
  {
    kind: "version",
    pattern: /(?<![\d.])\bv?\d+\.\d+\.\d+(?:-[0-9A-Za-z]+(?:\.[0-9A-Za-z]+)*)?\b(?!\.\d)|\bv\d+(?:\.\d+)?\b/g,
  },
  // Numbers with units: 128 MB, 1.5 GiB, 250ms, 30s, 5 %, 20,000 tokens. Not after ";" or "[", where
  // digits are ANSI colour codes ("\x1b[38;5;42m").
  {
    kind: "quantity",
    pattern: new RegExp(
      String.raw`(?<![\w.,;[])(?:${NUMBER})(?: ?(?:${SPACED_UNITS})|(?:${GLUED_UNITS}))(?![\w%])`,
      "g",
    ),
  },
  // Commands and code names in backticks: `npm run build`, `extractIdentifiers`. The identifier is
  // the text between the backticks. See `isCommandOrName` for what is skipped.
  { kind: "inline-code", pattern: /`([^`\n]{2,200})`/g, group: 1, accept: isCommandOrName, requires: "`" },
];

/** Identifiers longer than this are pasted blobs, not something a summary should repeat. */
const MAX_IDENTIFIER_LENGTH = 500;

interface Match {
  start: number;
  end: number;
  text: string;
}

/**
 * The identifiers in `text`, deduplicated, in order of first appearance. Deterministic; never
 * throws.
 */
export function extractIdentifiers(text: string): string[] {
  const found = new Set<string>();
  collectIdentifiers(text, found);
  return [...found];
}

/**
 * The identifiers across the model-visible text of `messages` (user and assistant text, thinking,
 * tool-call names and argument values, tool results, and the string fields of other messages such
 * as a bash execution's command and output), deduplicated in order of first appearance.
 */
export function extractIdentifiersFromMessages(messages: readonly AgentMessage[]): string[] {
  const found = new Set<string>();
  for (const message of messages) {
    for (const part of readableTextParts(message)) collectIdentifiers(part, found);
  }
  return [...found];
}

function collectIdentifiers(text: string, found: Set<string>): void {
  if (text.length === 0) return;
  for (const identifier of identifiersOfText(text)) found.add(identifier);
}

/**
 * The identifiers of recently read texts. The same messages are often read twice in a row: a
 * compaction takes a chunk's identifiers for its anchors, then the summarizer it calls (the
 * extractive one, or a model summarizer checking its output) reads them from the same messages.
 * Keyed by the text itself, so an answer is never stale. Two generations, each holding texts of
 * at most `GENERATION_COST` characters (plus `ENTRY_COST` per entry): when the newer one is full
 * it becomes the older one and the older one is dropped, which bounds memory without the cost of
 * evicting entries one by one.
 */
const GENERATION_COST = 2_000_000;
const ENTRY_COST = 64;
let newerTexts = new Map<string, readonly string[]>();
let olderTexts = new Map<string, readonly string[]>();
let newerCost = 0;

/** The identifiers of one text, deduplicated, in order of first appearance. */
function identifiersOfText(text: string): readonly string[] {
  const known = newerTexts.get(text) ?? olderTexts.get(text);
  if (known !== undefined) return known;
  const identifiers = new Set<string>();
  for (const match of nonOverlapping(allMatches(text))) {
    if (match.text.length >= 2 && match.text.length <= MAX_IDENTIFIER_LENGTH) identifiers.add(match.text);
  }
  const list = [...identifiers];
  const cost = text.length + ENTRY_COST;
  if (cost > GENERATION_COST) return list;
  if (newerCost + cost > GENERATION_COST) {
    olderTexts = newerTexts;
    newerTexts = new Map();
    newerCost = 0;
  }
  newerTexts.set(text, list);
  newerCost += cost;
  return list;
}

function allMatches(text: string): Match[] {
  const matches: Match[] = [];
  // Hex ids, error codes, ALL_CAPS names, errno names and provider ids: one scan over the words.
  collectWordIdentifiers(text, matches);
  for (const { pattern, group = 0, lead, accept, requires } of PATTERNS) {
    if (requires !== undefined && !contains(text, requires)) continue;
    // exec on the shared regex: matchAll would construct a copy of it for every text.
    pattern.lastIndex = 0;
    for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
      // An empty match would leave `lastIndex` in place (none of the patterns has one today).
      if (match[0].length === 0) pattern.lastIndex++;
      const leading = lead === undefined ? 0 : lead(text, match.index);
      if (leading < 0) continue;
      const start = match.index - leading;
      const value = group === 0 ? text.slice(start, match.index) + match[0] : match[group];
      if (value === undefined) continue;
      const identifier = trimTrailingPunctuation(value.trim());
      if (accept !== undefined && !accept(identifier)) continue;
      matches.push({ start, end: match.index + match[0].length, text: identifier });
    }
  }
  return matches;
}

/** Earliest start first, longest first on a tie; anything overlapping a kept match is dropped. */
function nonOverlapping(matches: Match[]): Match[] {
  matches.sort((left, right) => left.start - right.start || right.end - left.end);
  const kept: Match[] = [];
  let keptEnd = 0;
  for (const match of matches) {
    if (match.start < keptEnd) continue;
    kept.push(match);
    keptEnd = match.end;
  }
  return kept;
}

const CLOSING_TO_OPENING: Record<string, string> = { ")": "(", "]": "[", "}": "{" };

/**
 * Drops sentence punctuation glued to the end ("see src/a.ts." → "src/a.ts") and closing brackets
 * without an opening one in the identifier ("(see https://x.dev/a)" → "https://x.dev/a"), but keeps
 * balanced ones ("https://en.wikipedia.org/wiki/Foo_(bar)").
 */
function trimTrailingPunctuation(text: string): string {
  let end = text.length;
  while (end > 0) {
    const last = text.charAt(end - 1);
    if (".,;:!?'\"".includes(last)) {
      end--;
      continue;
    }
    const opening = CLOSING_TO_OPENING[last];
    if (opening !== undefined && count(text, opening, end) < count(text, last, end)) {
      end--;
      continue;
    }
    break;
  }
  return text.slice(0, end);
}

function count(text: string, character: string, end: number): number {
  let total = 0;
  for (let index = 0; index < end; index++) if (text.charAt(index) === character) total++;
  return total;
}

function contains(text: string, required: string | RegExp): boolean {
  return typeof required === "string" ? text.includes(required) : required.test(text);
}

// Leads look at one character at a time: a table lookup, not a regex test on a one-character
// string (relative paths alone have tens of thousands of candidate slashes in a long session).
const SEGMENT_CHARACTER = characterTable(new RegExp(SEGMENT));
const HEX_DIGIT = characterTable(/[0-9a-f]/i);
const WORD_CHARACTER = characterTable(/\w/);

/** Which ASCII characters `pattern` (a one-character class) matches; no other character does. */
function characterTable(pattern: RegExp): Uint8Array {
  const table = new Uint8Array(128);
  for (let code = 0; code < 128; code++) table[code] = pattern.test(String.fromCharCode(code)) ? 1 : 0;
  return table;
}

function isIn(table: Uint8Array, text: string, index: number): boolean {
  const code = text.charCodeAt(index);
  return code < 128 && table[code] === 1;
}

/**
 * The length of the run of `allowed` characters ending at `index` when it has `min` to `max` of
 * them and starts at a word boundary (the `\b` the pattern would start with), else -1.
 */
function wordBefore(text: string, index: number, allowed: Uint8Array, min: number, max: number): number {
  let start = index;
  while (start > 0 && index - start <= max && isIn(allowed, text, start - 1)) start--;
  const length = index - start;
  if (length < min || length > max) return -1;
  return start === 0 || !isIn(WORD_CHARACTER, text, start - 1) ? length : -1;
}

/** The first segment of a relative path ending at the slash at `index`, or -1 (see the pattern). */
function segmentBefore(text: string, index: number): number {
  let start = index;
  while (start > 0 && isIn(SEGMENT_CHARACTER, text, start - 1)) start--;
  if (start === index) return -1;
  const previous = text.charAt(start - 1);
  return previous === "/" || previous === "\\" ? -1 : index - start;
}

function hasLetter(text: string): boolean {
  return /[A-Za-z]/.test(text);
}

/**
 * A slash between words is often prose ("and/or", "read/write"), so a relative path must also
 * start with ./ or ../, be a scoped package (@scope/name), have two or more slashes, or end in a
 * file extension.
 */
function isLikelyRelativePath(text: string): boolean {
  if (!hasLetter(text)) return false;
  if (/^\.{1,2}\//.test(text) || text.startsWith("@")) return true;
  if (text.indexOf("/", text.indexOf("/") + 1) >= 0) return true;
  return /\.[A-Za-z][A-Za-z0-9]{0,9}$/.test(text);
}

/**
 * Backticks in tool output are often JavaScript template literals or markdown around plain words,
 * not commands. A span is kept when it reads as a command (a lowercase program name, `./script` or
 * `$VAR` followed by arguments) or as one code name with some structure (`camelCase`, `snake_case`,
 * `file.ts`, `--flag`, `fn()`, `KEY=value`); template placeholders (`${…}`) are never kept.
 */
function isCommandOrName(text: string): boolean {
  if (text.includes("${")) return false;
  const space = text.indexOf(" ");
  const first = space < 0 ? text : text.slice(0, space);
  if (space >= 0) return /^(?:[a-z][\w.-]*|\.{1,2}\/[\w./-]+|\$[A-Z_]+)$/.test(first);
  return hasLetter(first) && /^[A-Za-z$.~/@-]/.test(first) && /[A-Z_./()$@:=-]/.test(first.slice(1));
}

function hasValidOctets(text: string): boolean {
  const address = text.split("/")[0] ?? "";
  return address.split(".").every((octet) => Number(octet) <= 255);
}
