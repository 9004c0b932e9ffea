/**
 * Converts pi and OpenClaw session files into Clew transcript entries. Clew's format is pi's
 * version 3, so a version-3 file passes through unchanged. Older files are migrated the way pi
 * migrates them:
 *
 * - Version 1 (no `version` in the header; entries without `id`/`parentId`): every entry gets a
 *   deterministic 8-hex id (sha256 of the source session id and the line number) and is chained
 *   to the entry before it. A compaction's `firstKeptEntryIndex` becomes `firstKeptEntryId`.
 * - Version 2 (what OpenClaw writes): ids are kept; the message role `hookMessage` is renamed
 *   `custom`, as in pi's version-3 migration. OpenClaw needs nothing else: its own entries
 *   (`openclaw.cache-ttl`, `model-snapshot`) are ordinary `custom` entries and are kept.
 *
 * `firstKeptEntryIndex` is a 0-based index into the file's parsed lines *including the header*
 * (pi loads the header as entry 0 and its migration indexes that array). Checked on the two real
 * pi sessions in /work/shared/data/pi-sessions: with this reading both compactions of
 * before-compaction.jsonl keep from a user message that starts a turn (indexes 293 and 551);
 * read without the header they would point at the assistant replies to those prompts, splitting
 * each turn right after its prompt.
 *
 * Message objects are never rewritten except for that role rename; everything else (unknown entry
 * types, unknown fields, `bashExecution` messages) is kept as it was.
 */
import { createHash } from "node:crypto";
import type { SessionHeader, TranscriptEntry } from "../entries.js";
import type { TranscriptFormat } from "./detect-format.js";
import {
  type ConvertedTranscript,
  type ConvertOptions,
  isRecordObject,
  type JsonRecord,
  stringField,
} from "./import-log.js";

export type PiTranscriptFormat = Extract<TranscriptFormat, "clew" | "pi-v3" | "pi-legacy" | "openclaw">;

interface PiConversion {
  options: ConvertOptions;
  /** Header version of the source; 1 when absent. */
  sourceVersion: number;
  idSeed: string;
  entries: TranscriptEntry[];
  ids: Set<string>;
  previousId: string | null;
  /** Entry id of each parsed line, by its index among the parsed lines (0 is the header). */
  idByRecordIndex: Map<number, string>;
  /** Legacy compactions whose `firstKeptEntryIndex` is resolved once every id is known. */
  pendingCuts: { entry: TranscriptEntry; index: unknown; line: number }[];
}

/**
 * Converts a parsed pi/OpenClaw file (first record: the session header). Never throws; entries
 * that cannot be kept (no `type`, a `message` entry without a message, a repeated id) are
 * skipped and logged with their line.
 */
export function convertPiTranscript(
  records: readonly JsonRecord[],
  format: PiTranscriptFormat,
  options: ConvertOptions,
): ConvertedTranscript {
  const headerValue = records[0]?.value ?? {};
  const sourceVersion = typeof headerValue.version === "number" ? headerValue.version : 1;
  const conversion: PiConversion = {
    options,
    sourceVersion,
    idSeed: stringField(headerValue, "id") ?? options.sourceName,
    entries: [],
    ids: new Set(),
    previousId: null,
    idByRecordIndex: new Map(),
    pendingCuts: [],
  };
  for (let index = 1; index < records.length; index++) {
    const record = records[index];
    if (record === undefined) continue;
    const entry = convertEntry(conversion, record);
    if (entry === undefined) continue;
    conversion.entries.push(entry);
    conversion.ids.add(entry.id);
    conversion.idByRecordIndex.set(index, entry.id);
    conversion.previousId = entry.id;
  }
  resolveLegacyCuts(conversion);
  return { header: convertHeader(headerValue, format, conversion), entries: conversion.entries };
}

function convertHeader(
  value: Record<string, unknown>,
  format: PiTranscriptFormat,
  conversion: PiConversion,
): SessionHeader {
  const { options } = conversion;
  const header: SessionHeader = {
    ...value,
    type: "session",
    id: options.sessionId ?? stringField(value, "id") ?? conversion.idSeed,
    timestamp: stringField(value, "timestamp") ?? new Date(options.now()).toISOString(),
  };
  if (conversion.sourceVersion >= 3) return header;
  header.version = 3;
  header.importedFrom = { format, sourceName: options.sourceName, version: conversion.sourceVersion };
  return header;
}

function convertEntry(conversion: PiConversion, record: JsonRecord): TranscriptEntry | undefined {
  const { value, line } = record;
  const { log } = conversion.options;
  const type = stringField(value, "type");
  if (type === undefined || type === "session") {
    log.issue(line, type === undefined ? "entry has no type; skipped" : "second session header; skipped");
    log.skip("invalid-entry");
    return undefined;
  }
  if (type === "message" && !isRecordObject(value.message)) {
    log.issue(line, "message entry without a message object; skipped");
    log.skip("invalid-entry");
    return undefined;
  }
  const sourceId = stringField(value, "id");
  if (sourceId !== undefined && conversion.ids.has(sourceId)) {
    log.issue(line, `entry id "${sourceId}" repeats an earlier entry; skipped`);
    log.skip("duplicate-id");
    return undefined;
  }
  if (sourceId !== undefined && isWellFormed(value)) {
    const message = migrateMessage(value.message, conversion.sourceVersion);
    return (message === value.message ? value : { ...value, message }) as TranscriptEntry;
  }
  return rebuildEntry(conversion, record, type, sourceId);
}

function isWellFormed(value: Record<string, unknown>): boolean {
  const parentId = value.parentId;
  return (parentId === null || typeof parentId === "string") && typeof value.timestamp === "string";
}

/** Fills in what an older or damaged entry lacks, keeping the order of its fields. */
function rebuildEntry(
  conversion: PiConversion,
  record: JsonRecord,
  type: string,
  sourceId: string | undefined,
): TranscriptEntry {
  const { value, line } = record;
  const { log, now } = conversion.options;
  const legacy = conversion.sourceVersion < 2 && sourceId === undefined;
  const id = sourceId ?? derivedEntryId(conversion.idSeed, line, conversion.ids);
  if (sourceId === undefined && !legacy) log.issue(line, `entry has no id; assigned "${id}"`);
  let parentId: string | null = conversion.previousId;
  if (!legacy && value.parentId !== undefined) {
    if (value.parentId === null || typeof value.parentId === "string") parentId = value.parentId;
    else log.issue(line, "parentId is neither a string nor null; chained to the previous entry");
  } else if (!legacy) {
    log.issue(line, "entry has no parentId; chained to the previous entry");
  }
  let timestamp = stringField(value, "timestamp");
  if (timestamp === undefined) {
    timestamp = new Date(now()).toISOString();
    log.issue(line, "entry has no timestamp; set to the import time");
  }
  const entry: TranscriptEntry = { type, id, parentId, timestamp };
  for (const [field, fieldValue] of Object.entries(value)) {
    if (field in entry) continue;
    if (field === "firstKeptEntryIndex" && type === "compaction") {
      entry.firstKeptEntryId = "";
      conversion.pendingCuts.push({ entry, index: fieldValue, line });
      continue;
    }
    entry[field] = field === "message" ? migrateMessage(fieldValue, conversion.sourceVersion) : fieldValue;
  }
  return entry;
}

/** pi's version-3 migration renamed the `hookMessage` role to `custom`. */
function migrateMessage(message: unknown, sourceVersion: number): unknown {
  if (sourceVersion >= 3 || !isRecordObject(message) || message.role !== "hookMessage") return message;
  return { ...message, role: "custom" };
}

function resolveLegacyCuts(conversion: PiConversion): void {
  const { log } = conversion.options;
  for (const cut of conversion.pendingCuts) {
    const targetId =
      typeof cut.index === "number" && cut.index > 0 ? conversion.idByRecordIndex.get(cut.index) : undefined;
    if (targetId === undefined) {
      log.issue(
        cut.line,
        `compaction firstKeptEntryIndex ${JSON.stringify(cut.index)} names no entry; nothing before the compaction is kept`,
      );
    }
    // A compaction pointing at itself keeps nothing from before it, which is what pi does when
    // the index does not resolve.
    cut.entry.firstKeptEntryId = targetId ?? cut.entry.id;
  }
}

/**
 * 8 hex characters of sha256(seed, line): stable across imports of the same file. On a clash the
 * next 8 characters are tried, then a counter is mixed in.
 */
export function derivedEntryId(seed: string, line: number, taken: ReadonlySet<string>): string {
  for (let attempt = 0; ; attempt++) {
    const digest = createHash("sha256").update(`${seed}\n${line}\n${attempt}`).digest("hex");
    for (let offset = 0; offset + 8 <= digest.length; offset += 8) {
      const candidate = digest.slice(offset, offset + 8);
      if (!taken.has(candidate)) return candidate;
    }
  }
}
