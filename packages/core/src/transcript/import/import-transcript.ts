/**
 * Imports a foreign session transcript (pi, OpenClaw, Claude Code, or Clew's own) into Clew
 * transcript entries. Pure: it reads no files and writes nothing; the caller stores the result.
 */
import { TranscriptReadError } from "../../errors.js";
import type { SessionHeader, TranscriptEntry } from "../entries.js";
import { convertClaudeCodeTranscript } from "./claude-code.js";
import { detectFormatOfRecords, type TranscriptFormat } from "./detect-format.js";
import { type ImportIssue, ImportLog, isRecordObject, type JsonRecord } from "./import-log.js";
import { convertPiTranscript } from "./pi.js";

export interface ImportTranscriptOptions {
  /** Names the source in issues and errors (usually the file path). */
  sourceName: string;
  /** Session id for the imported header; defaults to the source's own. */
  sessionId?: string;
  /** Epoch milliseconds, for entries whose source has no timestamp. Defaults to `Date.now`. */
  now?: () => number;
}

export interface TranscriptImportStats {
  /** Non-blank source lines. */
  lines: number;
  /** Message entries produced. */
  messages: number;
  /** toolCall blocks in the imported assistant messages. */
  toolCalls: number;
  /** toolResult messages produced. */
  toolResults: number;
  /** Source lines (or content blocks, `block:<type>`) left out, counted by reason. */
  skipped: Record<string, number>;
  /** Everything surprising, with its line: bad JSON, missing fields, dangling references. */
  issues: ImportIssue[];
}

export interface ImportedTranscript {
  format: Exclude<TranscriptFormat, "unknown">;
  /** Why the format was chosen. */
  evidence: string;
  header: SessionHeader;
  entries: TranscriptEntry[];
  stats: TranscriptImportStats;
}

/**
 * Parses and converts a whole transcript. A line that is not a JSON object is skipped and reported
 * in `stats.issues` as `sourceName:line` (reason `invalid-json` in `skipped`); it never stops the
 * import.
 *
 * Throws `TranscriptReadError` (naming `sourceName` and the line) when nothing in the input can be
 * read: it is empty, no line is a JSON object, or the first readable line belongs to no known
 * format.
 */
export function importTranscript(text: string, options: ImportTranscriptOptions): ImportedTranscript {
  const log = new ImportLog(options.sourceName);
  const { records, lines } = parseLines(text, log);
  const firstIssue = log.issues[0];
  if (records.length === 0) {
    const reason = firstIssue ? `no line is a JSON object (${firstIssue.reason})` : "the transcript is empty";
    throw new TranscriptReadError(reason, options.sourceName, { line: firstIssue?.line ?? 1 });
  }
  const detection = detectFormatOfRecords(records);
  if (detection.format === "unknown") {
    throw new TranscriptReadError(
      `unrecognized transcript format: ${detection.evidence}`,
      options.sourceName,
      {
        line: detection.line,
      },
    );
  }
  const convertOptions = {
    sourceName: options.sourceName,
    sessionId: options.sessionId,
    now: options.now ?? Date.now,
    log,
  };
  const converted =
    detection.format === "claude-code"
      ? convertClaudeCodeTranscript(records, convertOptions)
      : convertPiTranscript(records, detection.format, convertOptions);
  // Parse problems are logged before conversion problems; callers read them in file order.
  log.issues.sort((first, second) => first.line - second.line);
  return {
    format: detection.format,
    evidence: detection.evidence,
    header: converted.header,
    entries: converted.entries,
    stats: { lines, ...countMessages(converted.entries), skipped: log.skipped, issues: log.issues },
  };
}

function parseLines(text: string, log: ImportLog): { records: JsonRecord[]; lines: number } {
  const records: JsonRecord[] = [];
  let lines = 0;
  const rawLines = text.split("\n");
  for (let index = 0; index < rawLines.length; index++) {
    const raw = rawLines[index]?.trim() ?? "";
    if (raw === "") continue;
    lines++;
    const line = index + 1;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (error) {
      log.issue(line, `not valid JSON (${error instanceof Error ? error.message : String(error)}); skipped`);
      log.skip("invalid-json");
      continue;
    }
    if (isRecordObject(value)) {
      records.push({ line, value });
    } else {
      log.issue(line, "JSON value is not an object; skipped");
      log.skip("invalid-json");
    }
  }
  return { records, lines };
}

function countMessages(
  entries: readonly TranscriptEntry[],
): Pick<TranscriptImportStats, "messages" | "toolCalls" | "toolResults"> {
  let messages = 0;
  let toolCalls = 0;
  let toolResults = 0;
  for (const entry of entries) {
    if (entry.type !== "message" || !isRecordObject(entry.message)) continue;
    messages++;
    const message = entry.message;
    if (message.role === "toolResult") toolResults++;
    if (message.role === "assistant" && Array.isArray(message.content)) {
      toolCalls += message.content.filter(
        (block) => isRecordObject(block) && block.type === "toolCall",
      ).length;
    }
  }
  return { messages, toolCalls, toolResults };
}
