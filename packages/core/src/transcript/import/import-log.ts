/**
 * What the transcript converters share: a parsed JSON line with its place in the source, the
 * converters' common output, and the log that records every line or block they could not keep.
 * Converters never drop anything silently: a dropped line is counted under a reason in `skipped`,
 * and anything surprising is an `issue` naming the source line.
 */
import type { SessionHeader, TranscriptEntry } from "../entries.js";

/** One source line that parsed as a JSON object. `line` is 1-based and counts blank lines too. */
export interface JsonRecord {
  line: number;
  value: Record<string, unknown>;
}

export interface ImportIssue {
  /** 1-based source line. */
  line: number;
  /** `sourceName:line`, ready for a message or a log line. */
  location: string;
  reason: string;
}

export interface ConvertedTranscript {
  header: SessionHeader;
  entries: TranscriptEntry[];
}

export interface ConvertOptions {
  sourceName: string;
  /** Replaces the session id of the source in the header. */
  sessionId?: string;
  /** Epoch milliseconds; used only where the source carries no timestamp. */
  now: () => number;
  log: ImportLog;
}

/** Collects skipped lines (counted by reason) and issues (with their line) during one import. */
export class ImportLog {
  readonly sourceName: string;
  readonly issues: ImportIssue[] = [];
  readonly skipped: Record<string, number> = {};

  constructor(sourceName: string) {
    this.sourceName = sourceName;
  }

  issue(line: number, reason: string): void {
    this.issues.push({ line, location: `${this.sourceName}:${line}`, reason });
  }

  skip(reason: string): void {
    this.skipped[reason] = (this.skipped[reason] ?? 0) + 1;
  }
}

export function isRecordObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function stringField(value: Record<string, unknown>, field: string): string | undefined {
  const fieldValue = value[field];
  return typeof fieldValue === "string" ? fieldValue : undefined;
}
