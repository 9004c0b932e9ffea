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
  AppendMessagesOptions,
  AppendMessagesResult,
  CompactionWrite,
  ContextView,
  EarlierSessionInfo,
  MessageRangeQuery,
  MessageSearchOptions,
  NewStoredMessage,
  SearchHit,
  SessionStats,
  StoredMessage,
  StoredMessageHead,
  StoredSummary,
  TranscriptWatermark,
} from "./history.js";
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

export type * from "./history.js";
export type * from "./records.js";
export type * from "./summary-jobs.js";

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
  /**
   * Ends `owner`'s lease without a result, so that any worker may claim the job again. With
   * `attempted: false` (the work was cancelled, not tried) the claim is not counted in `attempts`.
   */
  releaseSummaryJob(
    sessionId: string,
    chunkKey: string,
    owner: string,
    options?: { attempted?: boolean },
  ): Promise<void>;
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
  /**
   * Records the conversation (the host's session key) a session belongs to; the last key given
   * wins. Answers whether the session is recorded: false, with nothing written, for a session
   * never written.
   */
  noteSessionKey(sessionId: string, sessionKey: string): Promise<boolean>;
  /**
   * The sessions recorded under `sessionKey` that were created before `sessionId` (all of them
   * while `sessionId` was never written) and hold messages, newest first, at most `limit`: the
   * conversation's sessions before a `/new` or `/reset`.
   */
  earlierSessions(sessionId: string, sessionKey: string, limit: number): Promise<EarlierSessionInfo[]>;
  /**
   * Takes the session, and every session recorded under `sessionKey`, out of their conversation
   * (the user deleted it): `earlierSessions` never lists them again, until a key is noted for one
   * anew. Their messages stay. Answers how many sessions it detached.
   */
  detachConversation(sessionId: string, sessionKey: string | undefined): Promise<number>;
  close(): Promise<void>;
}
