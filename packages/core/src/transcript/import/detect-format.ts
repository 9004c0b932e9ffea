/**
 * Tells which agent wrote a session transcript, from its first lines.
 *
 * - `pi-legacy`: a pi header without `version` (or version 1) and entries without `id`/`parentId`.
 * - `openclaw`: a header with version 2 (OpenClaw writes version 2 when it creates the file), or a
 *   version-3 file holding OpenClaw's own custom entries (`openclaw.*`, `model-snapshot`).
 * - `clew`: a version-3 file carrying a field only Clew writes (a compaction `summarizer`).
 * - `pi-v3`: any other version-3 file (Clew and pi write the same format; both convert alike).
 * - `claude-code`: no session header; lines typed `user`/`assistant`/`system`/`summary`/
 *   `progress`/`file-history-snapshot` with Claude Code's fields (`uuid`, `sessionId`, ...).
 * - `unknown`: nothing above matched; `evidence` and `line` say which line did not match and why.
 */
import { isRecordObject, type JsonRecord, stringField } from "./import-log.js";

export type TranscriptFormat = "clew" | "pi-v3" | "pi-legacy" | "openclaw" | "claude-code" | "unknown";

export interface TranscriptFormatDetection {
  format: TranscriptFormat;
  /** Why: the fields that decided it, or for `unknown` what the line held instead. */
  evidence: string;
  /** 1-based line the evidence is about. */
  line: number;
}

/** How many non-blank lines `detectTranscriptFormat` parses when given a whole file. */
export const DETECTION_LINE_LIMIT = 50;

const CLAUDE_CODE_LINE_TYPES = new Set([
  "user",
  "assistant",
  "system",
  "summary",
  "progress",
  "file-history-snapshot",
  "queue-operation",
]);

const CLAUDE_CODE_FIELDS = ["uuid", "parentUuid", "sessionId", "leafUuid", "messageId"];

/**
 * Detects the format from raw lines (a whole file or its first lines; at most
 * `DETECTION_LINE_LIMIT` non-blank lines are parsed). Never throws: an unreadable input is
 * `unknown` with the line that failed.
 */
export function detectTranscriptFormat(lines: readonly string[]): TranscriptFormatDetection {
  const records: JsonRecord[] = [];
  let firstUnreadable: { line: number; reason: string } | undefined;
  for (let index = 0; index < lines.length && records.length < DETECTION_LINE_LIMIT; index++) {
    const text = lines[index]?.trim() ?? "";
    if (text === "") continue;
    try {
      const value: unknown = JSON.parse(text);
      if (isRecordObject(value)) records.push({ line: index + 1, value });
      else firstUnreadable ??= { line: index + 1, reason: "is JSON but not an object" };
    } catch {
      firstUnreadable ??= { line: index + 1, reason: "is not valid JSON" };
    }
  }
  if (records.length === 0) {
    return {
      format: "unknown",
      evidence: firstUnreadable
        ? `line ${firstUnreadable.line} ${firstUnreadable.reason}`
        : "the input is empty",
      line: firstUnreadable?.line ?? 1,
    };
  }
  return detectFormatOfRecords(records);
}

/** Detects the format from lines already parsed (what `importTranscript` uses). Never throws. */
export function detectFormatOfRecords(records: readonly JsonRecord[]): TranscriptFormatDetection {
  const first = records[0];
  if (first === undefined) return { format: "unknown", evidence: "the input is empty", line: 1 };
  if (first.value.type === "session") return detectSessionFormat(first, records.slice(1));
  if (isClaudeCodeLine(first.value)) {
    return {
      format: "claude-code",
      evidence: `line ${first.line} is a Claude Code "${String(first.value.type)}" line (no session header)`,
      line: first.line,
    };
  }
  const found = typeof first.value.type === "string" ? `type "${first.value.type}"` : "no type field";
  return {
    format: "unknown",
    evidence: `line ${first.line} has ${found}: expected a session header ({"type":"session",...}) or a Claude Code line`,
    line: first.line,
  };
}

function detectSessionFormat(header: JsonRecord, entries: readonly JsonRecord[]): TranscriptFormatDetection {
  const version = header.value.version;
  const line = header.line;
  if (version !== undefined && (typeof version !== "number" || !Number.isInteger(version) || version < 1)) {
    return {
      format: "unknown",
      evidence: `line ${line}: session header version ${JSON.stringify(version)} is not a version number`,
      line,
    };
  }
  if (typeof version === "number" && version > 3) {
    return {
      format: "unknown",
      evidence: `line ${line}: session header version ${version} is newer than 3`,
      line,
    };
  }
  const firstEntry = entries[0];
  const entriesHaveIds = firstEntry !== undefined && stringField(firstEntry.value, "id") !== undefined;
  if ((version === undefined || version === 1) && !entriesHaveIds) {
    return {
      format: "pi-legacy",
      evidence: `session header without version and entries without ids (line ${firstEntry?.line ?? line})`,
      line,
    };
  }
  const openclawMarker = entries.find((record) => isOpenClawCustomEntry(record.value));
  if (version === 2) {
    return {
      format: "openclaw",
      evidence: `line ${line}: session header version 2, which OpenClaw writes`,
      line,
    };
  }
  if (openclawMarker) {
    return {
      format: "openclaw",
      evidence: `line ${openclawMarker.line}: OpenClaw custom entry "${String(openclawMarker.value.customType)}"`,
      line: openclawMarker.line,
    };
  }
  const clewMarker = entries.find(
    (record) => record.value.type === "compaction" && typeof record.value.summarizer === "string",
  );
  if (clewMarker) {
    return {
      format: "clew",
      evidence: `line ${clewMarker.line}: compaction with a Clew summarizer field`,
      line: clewMarker.line,
    };
  }
  return {
    format: "pi-v3",
    evidence: `line ${line}: session header version ${String(version ?? 1)} with entry ids`,
    line,
  };
}

function isOpenClawCustomEntry(value: Record<string, unknown>): boolean {
  const customType = stringField(value, "customType");
  return (
    value.type === "custom" &&
    customType !== undefined &&
    (customType.startsWith("openclaw") || customType === "model-snapshot")
  );
}

function isClaudeCodeLine(value: Record<string, unknown>): boolean {
  const type = stringField(value, "type");
  if (type === undefined || !CLAUDE_CODE_LINE_TYPES.has(type)) return false;
  return CLAUDE_CODE_FIELDS.some((field) => field in value);
}
