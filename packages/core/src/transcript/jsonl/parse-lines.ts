/**
 * Reading JSONL transcripts: a streaming line splitter that classifies bad lines, and the loader
 * that turns the good ones into a header and entries.
 *
 * Contract:
 * - Good lines are never dropped. A bad line becomes one `TranscriptLoadIssue` with its file and
 *   1-based line: `torn` (the last line, no trailing newline, not valid JSON: a write cut short),
 *   `corrupt` (invalid JSON anywhere else), `invalid-entry` (valid JSON but not an entry).
 *   Blank lines are neither entries nor issues.
 * - Reading never writes. The file is read in fixed-size chunks; a line is decoded once, when it is
 *   complete, so memory stays near the size of the largest line plus one chunk.
 */
import type { FileHandle } from "node:fs/promises";
import { TranscriptReadError } from "../../errors.js";
import type { SessionHeader, TranscriptEntry } from "../entries.js";
import type { TranscriptLoadIssue } from "../transcript-store.js";

export const DEFAULT_CHUNK_BYTES = 1024 * 1024;
const NEWLINE = 0x0a;
const MAX_REASON_CHARS = 300;

export interface JsonLine {
  value: Record<string, unknown>;
  /** 1-based line number. */
  line: number;
  /** Byte offset of the line's first byte. */
  offset: number;
  /** Bytes of the line, without its newline. */
  length: number;
}

export interface JsonLinesSummary {
  bytes: number;
  /** False when the file is not empty and its last byte is not a newline. */
  endsWithNewline: boolean;
}

export interface JsonLinesVisitor {
  /** Each line holding a JSON object with a string `type`, in file order. */
  onLine(line: JsonLine): void;
  /** Each bad line, in file order. */
  onIssue(issue: TranscriptLoadIssue): void;
}

export interface ParseJsonLinesOptions {
  chunkBytes?: number;
}

/**
 * Reads `handle` from byte 0 to its end, reporting every non-blank line to `visitor` in file
 * order. Throws whatever the visitor or the read throws.
 */
export async function parseJsonLines(
  handle: FileHandle,
  location: string,
  visitor: JsonLinesVisitor,
  options: ParseJsonLinesOptions = {},
): Promise<JsonLinesSummary> {
  const chunkBytes = options.chunkBytes ?? DEFAULT_CHUNK_BYTES;
  let pieces: Buffer[] = [];
  let lineNumber = 1;
  let lineStart = 0;
  let position = 0;
  let lastByte: number | undefined;
  for (;;) {
    // A fresh buffer per read: pieces of an unfinished line keep pointing into earlier chunks.
    const buffer = Buffer.allocUnsafe(chunkBytes);
    const { bytesRead } = await handle.read(buffer, 0, chunkBytes, position);
    if (bytesRead === 0) break;
    const chunk = buffer.subarray(0, bytesRead);
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf(NEWLINE, start);
      if (newline === -1) {
        if (start < chunk.length) pieces.push(chunk.subarray(start));
        break;
      }
      const tail = chunk.subarray(start, newline);
      const bytes = pieces.length === 0 ? tail : Buffer.concat([...pieces, tail]);
      pieces = [];
      classifyLine(bytes, { location, line: lineNumber, offset: lineStart, terminated: true }, visitor);
      lineNumber += 1;
      lineStart = position + newline + 1;
      start = newline + 1;
    }
    position += bytesRead;
    lastByte = chunk[bytesRead - 1];
  }
  if (pieces.length > 0) {
    const bytes = pieces.length === 1 && pieces[0] !== undefined ? pieces[0] : Buffer.concat(pieces);
    classifyLine(bytes, { location, line: lineNumber, offset: lineStart, terminated: false }, visitor);
  }
  return { bytes: position, endsWithNewline: lastByte === undefined || lastByte === NEWLINE };
}

interface LinePlace {
  location: string;
  line: number;
  offset: number;
  /** Whether a newline ended the line; only the last line of a file can lack one. */
  terminated: boolean;
}

function classifyLine(bytes: Buffer, place: LinePlace, visitor: JsonLinesVisitor): void {
  if (isBlank(bytes)) return;
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString("utf8"));
  } catch (error) {
    const kind = place.terminated ? "corrupt" : "torn";
    const what = place.terminated ? "invalid JSON" : "incomplete last line (no trailing newline)";
    visitor.onIssue(issueAt(place, kind, `${what}, ${bytes.length} bytes: ${messageOf(error)}`));
    return;
  }
  if (!isPlainObject(value)) {
    visitor.onIssue(issueAt(place, "invalid-entry", `not a JSON object (${describeJsonType(value)})`));
    return;
  }
  if (typeof value.type !== "string") {
    visitor.onIssue(issueAt(place, "invalid-entry", 'object without a string "type"'));
    return;
  }
  visitor.onLine({ value, line: place.line, offset: place.offset, length: bytes.length });
}

function isBlank(bytes: Buffer): boolean {
  for (const byte of bytes) {
    // space, tab, carriage return
    if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0d) return false;
  }
  return true;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function describeJsonType(value: unknown): string {
  if (value === null) return "null";
  return Array.isArray(value) ? "array" : typeof value;
}

function messageOf(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.length > MAX_REASON_CHARS ? `${text.slice(0, MAX_REASON_CHARS)}…` : text;
}

function issueAt(place: LinePlace, kind: TranscriptLoadIssue["kind"], reason: string): TranscriptLoadIssue {
  return { kind, location: place.location, line: place.line, reason };
}

/** Where an entry's line sits in the file, for rewriting it in place. */
export interface LineRange {
  offset: number;
  length: number;
}

export interface LoadedTranscript {
  header: SessionHeader;
  /** Entries in file order; legacy entries carry in-memory ids `legacy-<line>`. */
  entries: TranscriptEntry[];
  /** Line of each entry, by entry id. */
  ranges: Map<string, LineRange>;
  issues: TranscriptLoadIssue[];
  bytes: number;
  endsWithNewline: boolean;
  /** True when some entry had no `id` or `parentId` (pi's older format): the file must not be appended to. */
  legacy: boolean;
}

/**
 * Loads a transcript through an already opened read handle. Throws `TranscriptReadError` (with
 * line 1) when the file is empty or its first line is not a valid session header. Entries without
 * an `id` get `legacy-<line>`, and entries without `parentId` are chained to the previous entry.
 */
export async function loadTranscriptFile(
  handle: FileHandle,
  location: string,
  options: ParseJsonLinesOptions = {},
): Promise<LoadedTranscript> {
  let header: SessionHeader | undefined;
  const entries: TranscriptEntry[] = [];
  const ranges = new Map<string, LineRange>();
  const issues: TranscriptLoadIssue[] = [];
  let legacy = false;
  const onLine = (line: JsonLine): void => {
    if (line.line === 1) {
      header = asHeader(line.value, location);
      return;
    }
    // Line 1 was blank or bad: stop at once instead of parsing the rest of a file we must refuse.
    if (header === undefined) throw headerError(location, issues);
    const previousId = entries.at(-1)?.id ?? null;
    const entry = asEntry(line, { location, previousId, ranges, issues });
    if (entry === undefined) return;
    if (entry !== line.value) legacy = true;
    entries.push(entry);
    ranges.set(entry.id, { offset: line.offset, length: line.length });
  };
  const onIssue = (issue: TranscriptLoadIssue): void => {
    issues.push(issue);
  };
  const summary = await parseJsonLines(handle, location, { onLine, onIssue }, options);
  if (header === undefined) throw headerError(location, issues);
  return {
    header,
    entries,
    ranges,
    issues,
    bytes: summary.bytes,
    endsWithNewline: summary.endsWithNewline,
    legacy,
  };
}

function headerError(location: string, issues: readonly TranscriptLoadIssue[]): TranscriptReadError {
  const firstLineIssue = issues.find((issue) => issue.line === 1);
  const reason = firstLineIssue === undefined ? "missing session header" : firstLineIssue.reason;
  return new TranscriptReadError(`not a transcript: invalid session header (${reason})`, location, {
    line: 1,
  });
}

function asHeader(value: Record<string, unknown>, location: string): SessionHeader {
  if (value.type !== "session") {
    throw new TranscriptReadError(
      `not a transcript: line 1 has type "${String(value.type)}", expected a "session" header`,
      location,
      { line: 1 },
    );
  }
  return value as SessionHeader;
}

interface EntryContext {
  location: string;
  previousId: string | null;
  ranges: ReadonlyMap<string, LineRange>;
  issues: TranscriptLoadIssue[];
}

function asEntry(line: JsonLine, context: EntryContext): TranscriptEntry | undefined {
  const value = line.value;
  const invalid = (reason: string): undefined => {
    context.issues.push({ kind: "invalid-entry", location: context.location, line: line.line, reason });
    return undefined;
  };
  if (value.id !== undefined && (typeof value.id !== "string" || value.id === "")) {
    return invalid('"id" is not a non-empty string');
  }
  if (value.parentId !== undefined && value.parentId !== null && typeof value.parentId !== "string") {
    return invalid('"parentId" is neither a string nor null');
  }
  // pi's older format had no ids or parent links: entries simply followed each other.
  const id = typeof value.id === "string" ? value.id : `legacy-${line.line}`;
  if (context.ranges.has(id)) return invalid(`duplicate id "${id}"`);
  if (value.id !== undefined && value.parentId !== undefined) return value as TranscriptEntry;
  const parentId = value.parentId === undefined ? context.previousId : value.parentId;
  return { ...value, type: value.type as string, id, parentId, timestamp: value.timestamp as string };
}
