/**
 * The transcript format: one JSON object per line, compatible with pi and OpenClaw session files.
 * Line 1 is the header (`type: "session"`); every later line is an entry with `id`, `parentId`
 * (null for the first) and an ISO `timestamp`. Entries form a tree through `parentId`; the active
 * branch is the path from the newest entry (the leaf) back to the root.
 *
 * Unknown entry types, and unknown fields on known ones, are kept and written back unchanged.
 */
import type { AgentMessage } from "../messages.js";

/** Current format version written by Clew (pi's current version). */
export const TRANSCRIPT_VERSION = 3;

export interface SessionHeader {
  [field: string]: unknown;
  type: "session";
  version?: number;
  id: string;
  timestamp: string;
  cwd?: string;
  parentSession?: string;
}

interface EntryBase {
  [field: string]: unknown;
  id: string;
  parentId: string | null;
  timestamp: string;
}

export interface MessageEntry extends EntryBase {
  type: "message";
  message: AgentMessage;
}

export interface CompactionEntry extends EntryBase {
  type: "compaction";
  summary: string;
  /** First entry the rebuilt context keeps raw; the summary replaces everything before it. */
  firstKeptEntryId: string;
  tokensBefore: number;
  tokensAfter?: number;
  details?: unknown;
  fromHook?: boolean;
  /** Which summarizer wrote the summary (`model:<provider>/<id>`, `extractive`, ...). */
  summarizer?: string;
  durationMs?: number;
}

export interface ModelChangeEntry extends EntryBase {
  type: "model_change";
  provider: string;
  modelId: string;
}

export interface ThinkingLevelChangeEntry extends EntryBase {
  type: "thinking_level_change";
  thinkingLevel: string;
}

/** Host data the model never sees (cache-TTL touches, snapshots, ...). */
export interface CustomEntry extends EntryBase {
  type: "custom";
  customType: string;
  data?: unknown;
}

/** An extension message the model sees as a user message. */
export interface CustomMessageEntry extends EntryBase {
  type: "custom_message";
  customType: string;
  content: string | unknown[];
  display?: boolean;
}

export interface BranchSummaryEntry extends EntryBase {
  type: "branch_summary";
  fromId: string;
  summary: string;
}

/** An entry of a type this version does not know; kept and written back as it was. */
export interface UnknownEntry extends EntryBase {
  type: string;
}

export type KnownTranscriptEntry =
  | MessageEntry
  | CompactionEntry
  | ModelChangeEntry
  | ThinkingLevelChangeEntry
  | CustomEntry
  | CustomMessageEntry
  | BranchSummaryEntry;

export type TranscriptEntry = KnownTranscriptEntry | UnknownEntry;

/** An entry before the store assigns `id`, `parentId` and `timestamp`. */
export type NewTranscriptEntry = DistributiveOmit<KnownTranscriptEntry, "id" | "parentId" | "timestamp"> & {
  id?: string;
  parentId?: string | null;
  timestamp?: string;
};

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

export function isMessageEntry(entry: TranscriptEntry): entry is MessageEntry {
  return entry.type === "message";
}

export function isCompactionEntry(entry: TranscriptEntry): entry is CompactionEntry {
  return entry.type === "compaction";
}
