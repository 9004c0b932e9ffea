/**
 * Compaction's anchors come from core's `extractIdentifiers`, which was rewritten for speed (whole
 * word kinds found by one scan, char tables in the leads, a cache of recent texts). The rewrite
 * must answer exactly what the plain patterns answered: this checks it against a copy of the
 * previous implementation (below, unchanged but for comments) on many generated texts made of
 * the fragments identifiers are built from.
 */
import { extractIdentifiers, extractIdentifiersFromMessages, readableTextParts } from "@clew/core";
import { describe, expect, it } from "vitest";
import { codingConversation } from "./support/conversations.js";

// The fragments, separated by "⁞" (a character none of them has).
const FRAGMENTS =
  "a⁞f⁞z⁞A⁞F⁞E⁞Z⁞0⁞7⁞9⁞_⁞-⁞.⁞/⁞\\⁞:⁞@⁞~⁞%⁞+⁞=⁞`⁞$⁞ ⁞  ⁞\n⁞(⁞)⁞[⁞]⁞{⁞}⁞\"⁞'⁞<⁞>⁞,⁞;⁞!⁞?⁞|⁞*⁞É⁞ſ⁞K⁞ENOENT⁞EPIPE⁞ERR_MODULE⁞_NOT_FOUND⁞HTTP⁞HTTP/1.1 ⁞status ⁞Status code: ⁞404⁞503⁞ Not Found⁞ Bad Gateway⁞v1.2.3⁞v20⁞0.73.1⁞-beta.2⁞toolu_⁞call_⁞01Kae6sJ⁞abc123⁞src/⁞./run.sh⁞@scope/pkg⁞index.ts⁞https://⁞x.dev/a⁞C:\\Users\\⁞~/.config⁞/etc/hosts⁞MB⁞ ms⁞s⁞k⁞tokens⁞1,000⁞localhost:⁞8080⁞127.0.0.1⁞/24⁞deadbeef⁞1234567⁞cafe12⁞8f14e45f⁞-ceb9-⁞4b5c-⁞a1b2-⁞c3d4e5f6a7b8⁞JIRA-⁞1234⁞TS⁞2345⁞$ {x}⁞npm run build⁞fn()⁞KEY=value".split(
    "⁞",
  );

/** A deterministic generator (mulberry32), so a failure can be reproduced. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let value = Math.imul(state ^ (state >>> 15), 1 | state);
    value = (value + Math.imul(value ^ (value >>> 7), 61 | value)) ^ value;
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

function generatedTexts(count: number, seed: number): string[] {
  const next = random(seed);
  const texts: string[] = [];
  for (let index = 0; index < count; index++) {
    const parts = Math.floor(next() * 40);
    let text = "";
    for (let part = 0; part < parts; part++) text += FRAGMENTS[Math.floor(next() * FRAGMENTS.length)];
    texts.push(text);
  }
  return texts;
}

describe("identifier extraction used by compaction anchors", () => {
  it("answers what the previous implementation answered, text by text", () => {
    for (const text of generatedTexts(20_000, 8)) {
      expect(extractIdentifiers(text), JSON.stringify(text)).toEqual(referenceIdentifiers(text));
    }
  });

  it("answers the same again for a text it has seen (the cache of recent texts)", () => {
    const texts = generatedTexts(500, 9);
    const first = texts.map((text) => extractIdentifiers(text));
    expect(texts.map((text) => extractIdentifiers(text))).toEqual(first);
    expect(first).toEqual(texts.map((text) => referenceIdentifiers(text)));
  });

  it("answers the same for messages as the union of their texts in order", () => {
    const messages = codingConversation(12);
    const expected = [
      ...new Set(messages.flatMap((message) => readableTextParts(message).flatMap(referenceIdentifiers))),
    ];
    expect(extractIdentifiersFromMessages(messages)).toEqual(expected);
    expect(expected.length).toBeGreaterThan(0);
  });
});

// The previous implementation, kept as the reference.
interface IdentifierPattern {
  kind: string;
  pattern: RegExp;
  group?: number;
  lead?: (text: string, index: number) => number;
  accept?: (text: string) => boolean;
  requires?: string | RegExp;
}
const SEGMENT = String.raw`[\w.@%+=~-]`;

const ERRNO_NAMES =
  "NOENT|ACCES|PERM|EXIST|ISDIR|NOTDIR|NOTEMPTY|ADDRINUSE|ADDRNOTAVAIL|CONNREFUSED|CONNRESET|CONNABORTED|" +
  "TIMEDOUT|PIPE|MFILE|NOSPC|BUSY|AGAIN|INVAL|NOTFOUND|HOSTUNREACH|NETUNREACH|ROFS|XDEV|LOOP|NAMETOOLONG";

const HTTP_REASONS =
  "Bad Request|Unauthorized|Forbidden|Not Found|Method Not Allowed|Conflict|Gone|Payload Too Large|" +
  "Unprocessable Entity|Too Many Requests|Internal Server Error|Bad Gateway|Service Unavailable|Gateway Timeout";
const SPACED_UNITS =
  "[KMGTP]i?B|kB|bytes?|ms|µs|us|ns|secs?|seconds?|mins?|minutes?|hrs?|hours?|days?|%|px|[kMG]?Hz|tokens|fps";
const GLUED_UNITS = "[KMGT]|k|s|m|h|d|B";
const NUMBER = String.raw`\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?`;

const PATTERNS: readonly IdentifierPattern[] = [
  { kind: "url", pattern: /\b(?:https?|wss?|ftp|file|ssh|git):\/\/[^\s<>"'`]+/g, requires: "://" },
  { kind: "windows-path", pattern: /\b[A-Za-z]:\\[^\s"'<>|*?`]*/g, requires: ":\\" },
  {
    kind: "home-path",
    pattern: new RegExp(String.raw`(?<![\w~])~\/${SEGMENT}+(?:\/${SEGMENT}+)*\/?`, "g"),
    requires: "~/",
  },
  {
    kind: "absolute-path",
    pattern: new RegExp(String.raw`(?<![\w.:/~\\<)-])\/${SEGMENT}+(?:\/${SEGMENT}+)*\/?`, "g"),
    accept: hasLetter,
    requires: "/",
  },
  {
    kind: "relative-path",
    pattern: new RegExp(String.raw`(?:\/${SEGMENT}+)+\/?`, "g"),
    lead: segmentBefore,
    accept: isLikelyRelativePath,
  },
  {
    kind: "uuid",
    pattern: /-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi,
    lead: (text, index) => wordBefore(text, index, HEX_DIGIT, 8, 8),
  },
  { kind: "hex-id", pattern: /\b[0-9a-f]{7,}\b/gi, accept: (text) => /\d/.test(text) && /[a-f]/i.test(text) },
  {
    kind: "prefixed-id",
    pattern: /_[A-Za-z0-9]{6,}\b/g,
    lead: (text, index) => wordBefore(text, index, LOWERCASE, 2, 12),
    accept: (text) => /\d/.test(text),
  },
  {
    kind: "code",
    pattern: /\b[A-Z][A-Z0-9]{1,9}-[A-Z0-9]{3,}\b/g,
    accept: (text) => /\d/.test(text),
    requires: /-[A-Z0-9]{3}/,
  },
  {
    kind: "host-port",
    pattern: /\b(?:localhost|(?:\d{1,3}\.){3}\d{1,3}|[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+):\d{2,5}\b/g,
    accept: (text) => Number(text.slice(text.lastIndexOf(":") + 1)) <= 65_535,
    requires: /:\d\d/,
  },
  {
    kind: "ipv4",
    pattern: /\b(?:\d{1,3}\.){3}\d{1,3}(?:\/\d{1,2})?\b/g,
    accept: hasValidOctets,
    requires: /\.\d{1,3}\.\d/,
  },
  { kind: "env-or-error-name", pattern: /\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b/g, requires: /_[A-Z0-9]/ },
  { kind: "errno", pattern: new RegExp(String.raw`\bE(?:${ERRNO_NAMES})\b`, "g"), requires: "E" },
  { kind: "error-code", pattern: /\b[A-Z]{1,5}\d{3,6}\b/g },
  { kind: "http-status", pattern: /\b(?:HTTP(?:\/\d(?:\.\d)?)?|[Ss]tatus(?: code)?:?) ?[45]\d\d\b/g },
  { kind: "http-status", pattern: new RegExp(String.raw`\b[45]\d\d (?:${HTTP_REASONS})\b`, "g") },
  {
    kind: "version",
    pattern: /(?<![\d.])\bv?\d+\.\d+\.\d+(?:-[0-9A-Za-z]+(?:\.[0-9A-Za-z]+)*)?\b(?!\.\d)|\bv\d+(?:\.\d+)?\b/g,
  },
  {
    kind: "quantity",
    pattern: new RegExp(
      String.raw`(?<![\w.,;[])(?:${NUMBER})(?: ?(?:${SPACED_UNITS})|(?:${GLUED_UNITS}))(?![\w%])`,
      "g",
    ),
  },
  { kind: "inline-code", pattern: /`([^`\n]{2,200})`/g, group: 1, accept: isCommandOrName, requires: "`" },
];

const MAX_IDENTIFIER_LENGTH = 500;

interface Match {
  start: number;
  end: number;
  text: string;
}

function referenceIdentifiers(text: string): string[] {
  const found = new Set<string>();
  collectIdentifiers(text, found);
  return [...found];
}

function collectIdentifiers(text: string, found: Set<string>): void {
  if (text.length === 0) return;
  for (const match of nonOverlapping(allMatches(text))) {
    if (match.text.length >= 2 && match.text.length <= MAX_IDENTIFIER_LENGTH) found.add(match.text);
  }
}

function allMatches(text: string): Match[] {
  const matches: Match[] = [];
  for (const { pattern, group = 0, lead, accept, requires } of PATTERNS) {
    if (requires !== undefined && !contains(text, requires)) continue;
    pattern.lastIndex = 0;
    for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
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

const SEGMENT_CHARACTER = new RegExp(SEGMENT);
const HEX_DIGIT = /[0-9a-f]/i;
const LOWERCASE = /[a-z]/;
const WORD_CHARACTER = /\w/;

function wordBefore(text: string, index: number, allowed: RegExp, min: number, max: number): number {
  let start = index;
  while (start > 0 && index - start <= max && allowed.test(text.charAt(start - 1))) start--;
  const length = index - start;
  if (length < min || length > max) return -1;
  return start === 0 || !WORD_CHARACTER.test(text.charAt(start - 1)) ? length : -1;
}

function segmentBefore(text: string, index: number): number {
  let start = index;
  while (start > 0 && SEGMENT_CHARACTER.test(text.charAt(start - 1))) start--;
  if (start === index) return -1;
  const previous = text.charAt(start - 1);
  return previous === "/" || previous === "\\" ? -1 : index - start;
}

function hasLetter(text: string): boolean {
  return /[A-Za-z]/.test(text);
}

function isLikelyRelativePath(text: string): boolean {
  if (!hasLetter(text)) return false;
  if (/^\.{1,2}\//.test(text) || text.startsWith("@")) return true;
  if ((text.match(/\//g)?.length ?? 0) >= 2) return true;
  return /\.[A-Za-z][A-Za-z0-9]{0,9}$/.test(text);
}

function isCommandOrName(text: string): boolean {
  if (text.includes("${")) return false;
  const [first = "", ...rest] = text.split(" ");
  if (rest.length > 0) return /^(?:[a-z][\w.-]*|\.{1,2}\/[\w./-]+|\$[A-Z_]+)$/.test(first);
  return hasLetter(first) && /^[A-Za-z$.~/@-]/.test(first) && /[A-Z_./()$@:=-]/.test(first.slice(1));
}

function hasValidOctets(text: string): boolean {
  const address = text.split("/")[0] ?? "";
  return address.split(".").every((octet) => Number(octet) <= 255);
}
