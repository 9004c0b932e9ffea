/**
 * The store seam of the lossless engine: what the engine needs from a database, and nothing that
 * only one database can do. SQLite (`sqlite/`) is the first implementation; a Postgres store will
 * follow, so query syntax, row ids and pragmas stay below this file.
 *
 * Contract, for every implementation (checked by `runLosslessStoreContractSuite`):
 * - One store holds one agent's sessions. Sessions are created on first write; reading a session
 *   that was never written answers empty (version 0, no items, no messages), never throws.
 * - Messages are immutable. `identity` is unique across the store: appending a message whose
 *   identity is stored already changes nothing (not even the view version). Identities embed the
 *   session id, so a store may keep them unique per session.
 * - Every write is one short transaction: it happens completely or not at all. Writes never wait
 *   on anything but the database.
 * - The context view is an ordered list of items per session. `appendMessages` adds one raw item
 *   per new message at the end; `applyCompaction` replaces contiguous runs with summary items. Each
 *   write that changes the view increments the session's view version by exactly one.
 * - `appendMessages` with `onlyToStoredSession` checks, inside its own transaction, that the session
 *   has stored messages (a view version above 0; a session row alone does not count), and writes
 *   nothing when it has none.
 * - Sequence numbers (`seq`) count a session's messages from 1 in storage order and never change.
 * - Reads return what the last completed write left; they never see half a write.
 * - Migrations run when a store is opened, never inside these methods.
 * - Failures throw `LosslessStoreError` (the operation is named); a compaction whose edits no
 *   longer match the view throws `LosslessStoreConflictError` and applies nothing.
 * - `close` is idempotent; any other call after it throws `LosslessStoreError`.
 * - Flight recorder and upkeep (`records.ts`): records never change once written; retention and
 *   `reclaimSpace` delete records and free pages, never messages or summaries. Only
 *   `deleteSession`, called for an explicit user request, removes messages (all of one session).
 * - Summary jobs and the spend ledger (`summary-jobs.ts`): leases are claimed atomically across
 *   processes; prepared summaries never change the view until a compaction publishes them.
 * - Transcript watermarks: one per session, read back as written, gone with the session. Writing
 *   one for a session never written does nothing.
 */
import type {
  DeletedSession,
  NewAssemblyRecord,
  NewCompactionPass,
  ReclaimMode,
  ReclaimResult,
  RecordRetention,
  RetentionResult,
  SessionReport,
  StoredAssemblyRecord,
  StoredCompactionPass,
  StoredSessionInfo,
  StoreTotals,
} from "./records.js";
import type {
  PreparedSummary,
  SpendReservation,
  StoredSummaryJob,
  SummaryDebt,
  SummaryJob,
  SummaryLease,
  SummarySpendTotals,
} from "./summary-jobs.js";

export type * from "./records.js";
export type * from "./summary-jobs.js";

/** A message to store, prepared by the engine. */
export interface NewStoredMessage {
  /** Stable identity (64 hex characters): the same message of the same session always gets it. */
  identity: string;
  role: string;
  /** Epoch milliseconds: the message's own timestamp, else when it was ingested. */
  createdAt: number;
  /** Tokens the message costs in context, by the engine's counter. */
  tokens: number;
  /** The message as canonical JSON; returned byte for byte by every read. */
  json: string;
  /**
   * The JSON's own top-level `timestamp` when it is a number (every copy of a message has the
   * same). A store may find stored identities by it, so it must not be given otherwise; when it
   * is absent the store reads it from `json` if it needs it.
   */
  timestamp?: number;
}

/**
 * How far bootstrap has imported a session's transcript, so that a restart reads only what was
 * appended since. The store keeps it as written; the engine decides whether it still holds (see
 * `src/ingest/transcript-watermark.ts`).
 */
export interface TranscriptWatermark {
  /** The transcript's path as bootstrap was given it. */
  file: string;
  /** The file's identity (device and inode): a rewrite renames a new file over the old one. */
  fileId: string;
  /** Bytes imported: the end of the last whole line read. */
  offset: number;
  /** sha256 (hex) of the file's first line and of the last line before `offset`. */
  headHash: string;
  tailHash: string;
  /** Where the last line before `offset` starts. */
  tailStart: number;
  /** The newest entry read (the active branch's leaf then); null when there was none. */
  leafId: string | null;
}

export interface StoredMessage {
  seq: number;
  identity: string;
  role: string;
  createdAt: number;
  tokens: number;
  json: string;
}

/** A stored message without its JSON: what choosing among many messages needs. */
export type StoredMessageHead = Omit<StoredMessage, "identity" | "json">;

export interface AppendMessagesResult {
  /** The messages that were new, in input order: their input index, seq and view position. */
  inserted: Array<{ index: number; seq: number; position: number }>;
  /** The session's view version after the write (unchanged when nothing was new). */
  viewVersion: number;
  /**
   * True when `onlyToStoredSession` was asked and the session had no stored message (never
   * written, or deleted since): then nothing was written. Required, so that a store written
   * before the option existed does not compile instead of storing a turn without its history.
   */
  sessionNotStored: boolean;
}

export interface AppendMessagesOptions {
  /**
   * Write only if the session has stored messages already; otherwise write nothing and answer
   * `sessionNotStored`. The check is part of the write, so no other writer (another process
   * deleting the session) comes between them. A caller that appends only the newest messages of
   * a snapshot learns this way that it must append the whole snapshot, without a read of its own.
   */
  onlyToStoredSession?: boolean;
}

/** An identifier a summary must keep verbatim, with the seqs of the messages it occurs in. */
export interface SummaryAnchor {
  value: string;
  messages: number[];
}

export type SummaryKind = "leaf" | "condensed";

/** A node of the summary DAG. Leaves cover messages; condensed nodes cover summaries. */
export interface NewSummary {
  /** `sum_` and 16 hex characters; unique across the store. */
  summaryId: string;
  kind: SummaryKind;
  /** 0 for leaves; one more than the deepest child for condensed nodes. */
  depth: number;
  /** The summary text (without the envelope the model sees). */
  content: string;
  /** Tokens of the rendered context item. */
  tokens: number;
  /** Covered message seqs as inclusive `[first, last]` ranges, ascending and disjoint. */
  sourceRanges: Array<[number, number]>;
  sourceCount: number;
  /** Tokens of the covered messages when they were raw. */
  sourceTokens: number;
  /** Summaries this node condenses, oldest first; empty for leaves. */
  childIds: string[];
  anchors: SummaryAnchor[];
  /** Epoch milliseconds of the oldest and newest covered message. */
  earliestAt: number;
  latestAt: number;
  /** Which summarizer wrote `content` (`extractive`, `model:<provider>/<id>`, `digest`). */
  summarizer: string;
  /** Dollars the summarizer reported for writing it; absent when it reported none. */
  costUsd?: number;
  createdAt: number;
}

export interface StoredSummary extends NewSummary {
  /** The condensed node that covers this one, once there is one. */
  parentId: string | undefined;
}

export type ContextItemRef = { kind: "message"; seq: number } | { kind: "summary"; summaryId: string };

/** One item of a session's context view, with what assembly needs and no further lookups. */
export interface StoredContextItem {
  position: number;
  ref: ContextItemRef;
  tokens: number;
  /** The message's `createdAt`, or the summary's `latestAt`. */
  createdAt: number;
  /** The message the model sees, serialized: the message itself, or the rendered summary. */
  json: string;
  /** Present for summary items. */
  summary?: {
    kind: SummaryKind;
    depth: number;
    content: string;
    anchors: SummaryAnchor[];
    sourceRanges: Array<[number, number]>;
    sourceCount: number;
    sourceTokens: number;
    earliestAt: number;
    latestAt: number;
  };
}

export interface ContextView {
  version: number;
  items: StoredContextItem[];
}

/** Replace the items at `replace` (adjacent in the view, in order) by one summary item. */
export interface ContextEdit {
  replace: Array<{ position: number; ref: ContextItemRef }>;
  summaryId: string;
  tokens: number;
  /** The rendered summary message as JSON. */
  json: string;
}

export interface CompactionWrite {
  /** Inserted first, so edits may reference them. */
  summaries: NewSummary[];
  /** Applied in order; an edit may replace the item an earlier edit created. */
  edits: ContextEdit[];
  /** Summary jobs this write publishes (their chunk keys): deleted in the same transaction. */
  settledJobs?: string[];
}

/** Messages of one session by seq range and time, in seq order, a page at a time. */
export interface MessageRangeQuery {
  /** Inclusive seq ranges; all messages when absent. */
  ranges?: Array<[number, number]>;
  /** Inclusive bounds on `createdAt` (epoch milliseconds). */
  fromTime?: number;
  toTime?: number;
  /** Only messages after this seq (the cursor of the previous page). */
  afterSeq?: number;
  limit: number;
}

export interface SessionStats {
  messageCount: number;
  summaryCount: number;
  viewVersion: number;
}

export interface SearchHit<Key> {
  key: Key;
  /** Higher is better; comparable only within one result list. */
  score: number;
}

export interface MessageSearchOptions {
  /**
   * Rank only about this many matches, for a search that runs on every request and must not slow
   * down as the session grows. When the terms match more messages than this, each term adds its
   * newest matches while the rarest terms add all of theirs first, so a rare term's oldest match is
   * still found; a store may score a term of several words by its rarity (IDF) alone, as BM25
   * scores one occurrence in a message of average length. Without it every match is ranked.
   */
  maxRanked?: number;
  /**
   * Messages the caller has no use for (those already in its context): never returned, and a
   * bounded ranking passes over them instead of spending its share on them.
   */
  skip?: (seq: number) => boolean;
  /**
   * For a search that must answer at once (assembly's): when more than this many stored messages
   * wait to be indexed in the whole store (a bulk import moments ago, in any session), answer
   * from what is indexed and leave them to the store's background indexing instead of indexing
   * them first; the newest messages may then be missed too. At most this many waiting (a turn's
   * own messages) are indexed first as usual. Without it a search finds every stored message,
   * however many must be indexed first.
   */
  indexAtMost?: number;
}

/**
 * Messages from which one `appendMessages` call is bulk work (an import): a store may do upkeep
 * after such a write (the SQLite store trims the write-ahead log it grew), and callers importing
 * a long list write it in parts of this size, so every part counts as bulk.
 */
export const BULK_WRITE_MESSAGES = 1_000;

/** The store of one agent. See the file comment for the contract. */
export interface LosslessStore {
  /** Names the implementation in logs and reports (`sqlite`). */
  readonly kind: string;
  /** Stores the messages not stored yet, in input order, and appends them to the view. */
  appendMessages(
    sessionId: string,
    messages: readonly NewStoredMessage[],
    options?: AppendMessagesOptions,
  ): Promise<AppendMessagesResult>;
  /** Stores the summaries and applies the edits in one transaction. Returns the new view version. */
  applyCompaction(sessionId: string, write: CompactionWrite): Promise<{ viewVersion: number }>;
  readContextView(sessionId: string): Promise<ContextView>;
  /** The session's transcript watermark; undefined when none was written (or the session is gone). */
  readTranscriptWatermark(sessionId: string): Promise<TranscriptWatermark | undefined>;
  /** Replaces the session's transcript watermark; does nothing for a session never written. */
  writeTranscriptWatermark(sessionId: string, watermark: TranscriptWatermark): Promise<void>;
  /** Cheap: lets a cached view be checked before it is used. */
  viewVersion(sessionId: string): Promise<number>;
  sessionStats(sessionId: string): Promise<SessionStats>;
  /** The messages with these seqs that exist, in seq order. */
  readMessages(sessionId: string, seqs: readonly number[]): Promise<StoredMessage[]>;
  readMessageRange(sessionId: string, query: MessageRangeQuery): Promise<StoredMessage[]>;
  /** The summaries with these ids that exist in the session, in the order asked. */
  readSummaries(sessionId: string, summaryIds: readonly string[]): Promise<StoredSummary[]>;
  /** Leaf summaries whose source ranges contain `seq`. */
  findLeafSummaries(sessionId: string, seq: number): Promise<StoredSummary[]>;
  /**
   * Full-text search over message text. Each term matches as a phrase of its words; a message
   * matches when any term does. Best first (BM25), at most `limit`. A store may leave out terms so
   * common that they barely rank (and cost the most) while rarer terms of the query remain.
   * `options.maxRanked` bounds the ranking work (see `MessageSearchOptions`).
   */
  searchMessages(
    sessionId: string,
    terms: readonly string[],
    limit: number,
    options?: MessageSearchOptions,
  ): Promise<SearchHit<number>[]>;
  /**
   * The heads (seq, role, time, tokens) of the messages with these seqs that exist, in seq order:
   * what search hits are chosen by before only the chosen ones are read whole (`readMessages`).
   */
  readMessageHeads(sessionId: string, seqs: readonly number[]): Promise<StoredMessageHead[]>;
  /** Like `searchMessages`, over summary text (`content`) or summary anchors (`anchors`). */
  searchSummaries(
    sessionId: string,
    terms: readonly string[],
    field: "content" | "anchors",
    limit: number,
  ): Promise<SearchHit<string>[]>;
  /** Bytes the store takes on disk, all files included. */
  sizeOnDisk(): Promise<number>;
  /**
   * Finishes work a store defers off the write path (indexing what was appended, shrinking a
   * journal that grew), so the store is at its settled size and searches need no catch-up. Cheap
   * when nothing is pending; safe to call at any time; a store that defers nothing does nothing.
   */
  settle(): Promise<void>;
  /** A session's figures (zeros for a session never written). May read every row of the session. */
  sessionReport(sessionId: string): Promise<SessionReport>;
  /** Counts over the whole store. */
  storeTotals(): Promise<StoreTotals>;
  /** Every session, oldest first. */
  listSessions(): Promise<StoredSessionInfo[]>;
  /**
   * Stores a compaction pass record; a pass with `outcome` `compacted` or `short` and fewer tokens
   * after than before counts toward the session's `compactionPasses` and `tokensRemovedTotal`.
   * Does nothing for a session never written. A `passId` stored already changes nothing.
   */
  recordCompactionPass(sessionId: string, pass: NewCompactionPass): Promise<void>;
  /**
   * Stores assembly records in one write (records of sessions never written are skipped) and
   * keeps only the newest `keepPerSession` of each session they touch.
   */
  recordAssemblies(
    entries: ReadonlyArray<{ sessionId: string; record: NewAssemblyRecord }>,
    keepPerSession: number,
  ): Promise<void>;
  /** Compaction passes, newest first: of one session, or of all when `sessionId` is absent. */
  listCompactionPasses(query: { sessionId?: string; limit: number }): Promise<StoredCompactionPass[]>;
  readCompactionPass(passId: string): Promise<StoredCompactionPass | undefined>;
  /** A session's assembly records, newest first. */
  listAssemblies(sessionId: string, limit: number): Promise<StoredAssemblyRecord[]>;
  /** The session holding the summary `summaryId`, when one does. */
  findSummarySession(summaryId: string): Promise<string | undefined>;
  /** Deletes recorder records beyond the policy. Never deletes messages or summaries. */
  pruneRecords(policy: RecordRetention): Promise<RetentionResult>;
  /**
   * Deletes one session completely: messages, summaries, view, records, search index entries.
   * Only for an explicit user request. An unknown session deletes nothing and answers zeros.
   */
  deleteSession(sessionId: string): Promise<DeletedSession>;
  /**
   * Returns unused space to the file system (see `ReclaimMode`); a store may also compact its
   * search indexes then (SQLite merges the FTS5 segments). Never on the request path.
   */
  reclaimSpace(mode: ReclaimMode): Promise<ReclaimResult>;
  /** When upkeep (retention, reclaiming) last ran (epoch milliseconds), across processes. */
  lastUpkeepAt(): Promise<number | undefined>;
  setLastUpkeepAt(at: number): Promise<void>;
  /**
   * Summary preparation (`summary-jobs.ts` states its contract). Claims `job` for `lease.owner`:
   * true when the owner now holds it (the job was new, released, or its lease had expired at
   * `lease.now`); false when a lease still runs (the owner's own included), the job is completed
   * already, or the session was never written.
   */
  claimSummaryJob(sessionId: string, job: SummaryJob, lease: SummaryLease): Promise<boolean>;
  /**
   * Stores the job's prepared summary and ends the lease, when `owner` still holds the job (also
   * after its lease expired, as long as nobody took it over). False, storing nothing, otherwise.
   */
  completeSummaryJob(
    sessionId: string,
    chunkKey: string,
    owner: string,
    prepared: PreparedSummary,
  ): Promise<boolean>;
  /** Ends `owner`'s lease without a result, so that any worker may claim the job again. */
  releaseSummaryJob(sessionId: string, chunkKey: string, owner: string): Promise<void>;
  /** The session's jobs, by first position, with their prepared summaries. */
  listSummaryJobs(sessionId: string): Promise<StoredSummaryJob[]>;
  /** Deletes these jobs with their prepared summaries; returns how many there were. */
  deleteSummaryJobs(sessionId: string, chunkKeys: readonly string[]): Promise<number>;
  /**
   * Records `tokens` as spent when the session's spend since `windowStart` plus them stays within
   * `limitTokens`, in one transaction; the reservation's id, or undefined (nothing recorded) when
   * it would not, or the session was never written.
   */
  reserveSummarySpend(sessionId: string, reservation: SpendReservation): Promise<string | undefined>;
  /** Replaces a reservation's tokens by what the call took (0 when it was never made). */
  settleSummarySpend(sessionId: string, reservationId: string, tokens: number): Promise<void>;
  /** Records debt; does nothing for a session never written. */
  recordSummaryDebt(sessionId: string, debt: SummaryDebt): Promise<void>;
  /** The session's ledger sums over entries made at or after `since` (zeros when unknown). */
  summarySpend(sessionId: string, since: number): Promise<SummarySpendTotals>;
  close(): Promise<void>;
}
