/**
 * The transcript-store seam: where sessions live. JSONL files are the first implementation;
 * SQLite and Postgres stores follow and must pass the same contract suite
 * (`@clew/core/testing` → `runTranscriptStoreContractSuite`).
 *
 * Contract:
 * - A transcript is append-only. `append` writes each entry whole (one line, or one row) and never
 *   touches earlier entries. Only `rewriteTranscriptEntries` replaces entries, atomically: every
 *   replacement lands or none does, and entries it does not name are kept byte for byte.
 * - Loading never drops or rewrites a good entry. A corrupt or torn entry is skipped and reported
 *   in `loadIssues` with its location (file and line); it is never "repaired" on disk by a load.
 * - One writer per session across processes: `open` takes the session's writer lock and fails
 *   with `SessionLockedError` while another live process holds it. A lock left by a crashed
 *   process is taken over. `openReadOnly` takes no lock.
 * - An open transcript keeps its entries in memory and follows its own appends, so a long-running
 *   process never re-reads or re-parses the whole transcript per turn.
 * - Durability: with `fsync: "always"` every append is synced before it resolves; with `"turn"`
 *   (the default) the host calls `flush()` at the end of each turn; `"never"` leaves it to the OS.
 * - Errors at this edge are typed (`UnknownSessionError`, `SessionLockedError`,
 *   `TranscriptReadError`, `InvalidSessionIdError`) and name the session and file.
 */
import type { TranscriptRewriteRequest, TranscriptRewriteResult } from "../context-engine/types.js";
import type { NewTranscriptEntry, SessionHeader, TranscriptEntry } from "./entries.js";

export type FsyncPolicy = "always" | "turn" | "never";

export interface TranscriptLoadIssue {
  kind: "corrupt" | "torn" | "invalid-entry";
  /** File (or store location) and 1-based line of the bad entry. */
  location: string;
  line: number;
  reason: string;
}

export interface TranscriptInfo {
  agentId: string;
  sessionId: string;
  location: string;
  bytes: number;
  modifiedAt: number;
}

export interface CreateTranscriptOptions {
  agentId: string;
  /** Defaults to a new random id. Must match `^[a-z0-9][a-z0-9._-]{0,127}$` (any case). */
  sessionId?: string;
  cwd?: string;
  parentSession?: string;
  /** When the session started (ISO); defaults to now. Imports keep the source's start time. */
  timestamp?: string;
  /** Extra header fields (provider, modelId, ...), written as given. */
  headerFields?: Record<string, unknown>;
}

export interface Transcript {
  readonly agentId: string;
  readonly sessionId: string;
  /** Where it lives: a file path for JSONL. */
  readonly location: string;
  readonly header: SessionHeader;
  readonly readOnly: boolean;
  /** Bad entries skipped while loading. */
  readonly loadIssues: readonly TranscriptLoadIssue[];
  /** Every entry in stored order, all branches. */
  entries(): readonly TranscriptEntry[];
  getEntry(id: string): TranscriptEntry | undefined;
  /** The newest entry's id, or null for an empty transcript. */
  readonly leafId: string | null;
  /** The active branch, root first, leaf last. */
  branch(): TranscriptEntry[];
  /**
   * Appends entries. Missing `id`s are generated, missing `timestamp`s set to now, and a missing
   * `parentId` chains each entry to the previous one (the first to the current leaf).
   */
  append(entries: readonly NewTranscriptEntry[]): Promise<TranscriptEntry[]>;
  /** Makes every append so far durable (fsync). */
  flush(): Promise<void>;
  rewriteTranscriptEntries(request: TranscriptRewriteRequest): Promise<TranscriptRewriteResult>;
  /** Releases the writer lock. Later calls on this object reject. */
  close(): Promise<void>;
}

export interface TranscriptStore {
  /** `jsonl`, `sqlite`, ... */
  readonly kind: string;
  create(options: CreateTranscriptOptions): Promise<Transcript>;
  /** Opens for appending; takes the writer lock. Throws `UnknownSessionError` if it does not exist. */
  open(agentId: string, sessionId: string): Promise<Transcript>;
  /** Opens without the lock; `append` and `rewriteTranscriptEntries` reject. */
  openReadOnly(agentId: string, sessionId: string): Promise<Transcript>;
  exists(agentId: string, sessionId: string): Promise<boolean>;
  list(agentId: string): Promise<TranscriptInfo[]>;
  /** Moves a transcript out of the live set (kept on disk, renamed with the reason and time). */
  archive(agentId: string, sessionId: string, reason: "reset" | "deleted"): Promise<string>;
}
