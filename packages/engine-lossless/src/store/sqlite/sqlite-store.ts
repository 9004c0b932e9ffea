/**
 * The SQLite implementation of the store seam (better-sqlite3): one database file per agent, WAL,
 * one short transaction per write. better-sqlite3 is synchronous, so each transaction finishes
 * before anything else of this process runs and no two of them ever interleave. Background work
 * that would hold the event loop long (`settle`, an incremental `reclaimSpace`) runs as several
 * transactions with the event loop free between them.
 */
import Database from "better-sqlite3";
import { LosslessStoreConflictError, LosslessStoreError } from "../../errors.js";
import { nextMacrotask } from "../../event-loop.js";
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
} from "../records.js";
import type {
  AppendMessagesOptions,
  AppendMessagesResult,
  CompactionWrite,
  ContextView,
  EarlierSessionInfo,
  LosslessStore,
  MessageRangeQuery,
  MessageSearchOptions,
  NewStoredMessage,
  SearchHit,
  SessionStats,
  StoredMessage,
  StoredMessageHead,
  StoredSummary,
  TranscriptWatermark,
} from "../store.js";
import type {
  PreparedSummary,
  SpendReservation,
  StoredSummaryJob,
  SummaryDebt,
  SummaryJob,
  SummaryLease,
  SummarySpendTotals,
} from "../summary-jobs.js";
import { reclaimInSteps } from "./reclaim-space.js";
import { configureConnection, migrate } from "./schema.js";
import { DEFAULT_SEARCH_INDEX_OPTIONS, MessageSearchIndex } from "./search-index.js";
import { SessionJsonBytes } from "./session-json-bytes.js";
import { SessionKeys } from "./session-keys.js";
import { SqliteHistoryReader } from "./sqlite-history-reader.js";
import { SqliteRecorder } from "./sqlite-recorder.js";
import { SqliteSearch } from "./sqlite-search.js";
import { SqliteSummaryJobs } from "./sqlite-summary-jobs.js";
import { SqliteViewWriter } from "./sqlite-view-writer.js";
import { prepareStatements } from "./statements.js";
import { compactionLogBytes, StoreLog } from "./store-log.js";
import { TermSelection } from "./term-selection.js";
import { fileBytes } from "./wal.js";

export interface SqliteStoreOptions {
  /** Epoch milliseconds for `created_at` of new sessions. Defaults to `Date.now`. */
  now?: () => number;
  /**
   * How long after a write new messages are indexed for search in the background (ms; default
   * 50), or `false` to index them only when a search needs them. Searches are complete either way.
   */
  backgroundIndexDelayMs?: number | false;
}

/**
 * Opens (creating when missing) the database at `path` and migrates it. `:memory:` gives a
 * private in-memory store. Throws `LosslessStoreError` (operation `open`) when the file cannot be
 * opened, is not a database, or has a newer schema.
 */
export function openSqliteStore(path: string, options: SqliteStoreOptions = {}): SqliteLosslessStore {
  let database: Database.Database | undefined;
  try {
    database = new Database(path);
    // Only a new file takes this (it must precede WAL); it lets upkeep free pages in small steps.
    database.pragma("auto_vacuum = INCREMENTAL");
    configureConnection(database);
    migrate(database);
    return new SqliteLosslessStore(database, path, options.now ?? Date.now, options.backgroundIndexDelayMs);
  } catch (error) {
    database?.close();
    throw new LosslessStoreError("open", path, error);
  }
}

export class SqliteLosslessStore implements LosslessStore {
  readonly kind = "sqlite";
  private readonly writer: SqliteViewWriter;
  private readonly reader: SqliteHistoryReader;
  private readonly search: SqliteSearch;
  private readonly termSelection: TermSelection;
  private readonly recorder: SqliteRecorder;
  private readonly jobs: SqliteSummaryJobs;
  private readonly searchIndex: MessageSearchIndex;
  private readonly log: StoreLog;
  private readonly jsonBytes: SessionJsonBytes;
  private readonly sessionKeys: SessionKeys;
  private closed = false;
  private closing: Promise<void> | undefined;

  constructor(
    private readonly database: Database.Database,
    private readonly path: string,
    now: () => number,
    backgroundIndexDelayMs: number | false = DEFAULT_SEARCH_INDEX_OPTIONS.backgroundDelayMs,
  ) {
    const statements = prepareStatements(database);
    this.jsonBytes = new SessionJsonBytes(database);
    this.sessionKeys = new SessionKeys(database);
    this.recorder = new SqliteRecorder(database, () => fileBytes(path), this.jsonBytes);
    this.jobs = new SqliteSummaryJobs(database);
    this.writer = new SqliteViewWriter(database, statements, this.jobs, now);
    const inMemory = path === ":memory:" || path === "";
    this.log = new StoreLog(database, inMemory ? undefined : path, () => this.writer.startJournal());
    this.searchIndex = new MessageSearchIndex(database, {
      ...DEFAULT_SEARCH_INDEX_OPTIONS,
      backgroundDelayMs: backgroundIndexDelayMs,
      afterLargeWrite: () => this.log.afterLargeWrite(),
      whenCurrent: () => void this.log.emptyIfLarge(),
    });
    this.reader = new SqliteHistoryReader(database, statements);
    this.termSelection = new TermSelection(database);
    this.search = new SqliteSearch(database, statements, this.searchIndex, this.termSelection);
    // Messages a crash (or a close before the background step) left unindexed.
    if (this.searchIndex.pendingCount() > 0) this.searchIndex.schedule();
  }

  /** Messages stored but not yet in the full-text index (searches index them first). */
  pendingIndexCount(): number {
    return this.run("pendingIndexCount", () => this.searchIndex.pendingCount());
  }

  async appendMessages(
    sessionId: string,
    messages: readonly NewStoredMessage[],
    options: AppendMessagesOptions = {},
  ): Promise<AppendMessagesResult> {
    const result = this.run("appendMessages", () => this.writer.append(sessionId, messages, options));
    this.jsonBytes.added(sessionId, messages, result.inserted);
    // Indexing is left out of the write: it costs more than the insert (see search-index.ts).
    if (result.inserted.length > 0) this.searchIndex.afterWrite(result.inserted.length);
    return result;
  }

  async applyCompaction(sessionId: string, write: CompactionWrite): Promise<{ viewVersion: number }> {
    // A compaction's write can be large (a 50k backlog's: 0.55 s and 20 MB of log).
    await this.log.makeRoomFor(compactionLogBytes(write));
    return this.run("applyCompaction", () => this.writer.applyCompaction(sessionId, write));
  }

  async readContextView(sessionId: string): Promise<ContextView> {
    return this.run("readContextView", () => this.reader.contextView(sessionId));
  }

  async readTranscriptWatermark(sessionId: string): Promise<TranscriptWatermark | undefined> {
    return this.run("readTranscriptWatermark", () => this.writer.transcriptWatermark(sessionId));
  }

  async writeTranscriptWatermark(sessionId: string, watermark: TranscriptWatermark): Promise<void> {
    this.run("writeTranscriptWatermark", () => this.writer.writeTranscriptWatermark(sessionId, watermark));
  }

  async viewVersion(sessionId: string): Promise<number> {
    return this.run("viewVersion", () => this.reader.viewVersion(sessionId));
  }

  async sessionStats(sessionId: string): Promise<SessionStats> {
    return this.run("sessionStats", () => this.reader.sessionStats(sessionId));
  }

  async readMessages(sessionId: string, seqs: readonly number[]): Promise<StoredMessage[]> {
    return this.run("readMessages", () => this.reader.messages(sessionId, seqs));
  }

  async readMessageRange(sessionId: string, query: MessageRangeQuery): Promise<StoredMessage[]> {
    return this.run("readMessageRange", () => this.reader.messageRange(sessionId, query));
  }

  async readSummaries(sessionId: string, summaryIds: readonly string[]): Promise<StoredSummary[]> {
    return this.run("readSummaries", () => this.reader.summaries(sessionId, summaryIds));
  }

  async findLeafSummaries(sessionId: string, seq: number): Promise<StoredSummary[]> {
    return this.run("findLeafSummaries", () => this.reader.leafSummariesOf(sessionId, seq));
  }

  async searchMessages(
    sessionId: string,
    terms: readonly string[],
    limit: number,
    options?: MessageSearchOptions,
  ): Promise<SearchHit<number>[]> {
    return this.run("searchMessages", () => this.search.messages(sessionId, terms, limit, options));
  }

  async readMessageHeads(sessionId: string, seqs: readonly number[]): Promise<StoredMessageHead[]> {
    return this.run("readMessageHeads", () => this.search.messageHeads(sessionId, seqs));
  }

  async searchSummaries(
    sessionId: string,
    terms: readonly string[],
    field: "content" | "anchors",
    limit: number,
  ): Promise<SearchHit<string>[]> {
    return this.run("searchSummaries", () => this.search.summaries(sessionId, terms, field, limit));
  }

  /**
   * Indexes what is pending and, when the log has grown, empties it and starts it again at once
   * with one small write (see `store-log.ts`): starting a log costs a sync, and settle runs in
   * background maintenance, so that sync is not paid by the next turn's ingest (it was in about one
   * turn in eight). A bulk import's backlog is indexed a batch at a time with the event loop free
   * in between: in one go, 50,000 messages held it for over a second.
   */
  async settle(): Promise<void> {
    while (!this.run("settle", () => this.searchIndex.catchUpStep())) await nextMacrotask();
    await this.log.emptyIfLarge();
    // Emptied here or by an earlier background step: started again now, not in the next ingest.
    this.run("settle", () => this.log.restartIfEmpty());
  }

  async noteSessionKey(sessionId: string, sessionKey: string): Promise<boolean> {
    return this.run("noteSessionKey", () => this.sessionKeys.note(sessionId, sessionKey));
  }

  async detachConversation(sessionId: string, sessionKey: string | undefined): Promise<number> {
    return this.run("detachConversation", () => this.sessionKeys.detach(sessionId, sessionKey));
  }

  async earlierSessions(sessionId: string, sessionKey: string, limit: number): Promise<EarlierSessionInfo[]> {
    return this.run("earlierSessions", () => this.sessionKeys.earlier(sessionId, sessionKey, limit));
  }

  async sizeOnDisk(): Promise<number> {
    return this.run("sizeOnDisk", () => fileBytes(this.path));
  }

  async sessionReport(sessionId: string): Promise<SessionReport> {
    return this.run("sessionReport", () => this.recorder.sessionReport(sessionId));
  }

  async storeTotals(): Promise<StoreTotals> {
    return this.run("storeTotals", () => this.recorder.storeTotals());
  }

  async listSessions(): Promise<StoredSessionInfo[]> {
    return this.run("listSessions", () => this.recorder.listSessions());
  }

  async recordCompactionPass(sessionId: string, pass: NewCompactionPass): Promise<void> {
    this.run("recordCompactionPass", () => this.recorder.recordCompactionPass(sessionId, pass));
  }

  async recordAssemblies(
    entries: ReadonlyArray<{ sessionId: string; record: NewAssemblyRecord }>,
    keepPerSession: number,
  ): Promise<void> {
    this.run("recordAssemblies", () => this.recorder.recordAssemblies(entries, keepPerSession));
  }

  async listCompactionPasses(query: { sessionId?: string; limit: number }): Promise<StoredCompactionPass[]> {
    return this.run("listCompactionPasses", () => this.recorder.listCompactionPasses(query));
  }

  async readCompactionPass(passId: string): Promise<StoredCompactionPass | undefined> {
    return this.run("readCompactionPass", () => this.recorder.readCompactionPass(passId));
  }

  async listAssemblies(sessionId: string, limit: number): Promise<StoredAssemblyRecord[]> {
    return this.run("listAssemblies", () => this.recorder.listAssemblies(sessionId, limit));
  }

  async findSummarySession(summaryId: string): Promise<string | undefined> {
    return this.run("findSummarySession", () => this.recorder.findSummarySession(summaryId));
  }

  async pruneRecords(policy: RecordRetention): Promise<RetentionResult> {
    return this.run("pruneRecords", () => this.recorder.pruneRecords(policy));
  }

  async deleteSession(sessionId: string): Promise<DeletedSession> {
    return this.run("deleteSession", () =>
      // The deletion unindexes the session's messages, so every one of them must be indexed.
      this.database.transaction(() => {
        this.searchIndex.catchUp();
        // Their row ids may be used again: counts kept for term selection would fall behind.
        this.termSelection.forgetCounts();
        this.reader.forgetMessages();
        this.jsonBytes.forget();
        return this.recorder.deleteSession(sessionId);
      })(),
    );
  }

  /** `full` in one go (an explicit command); `incremental` in steps (`reclaim-space.ts`). */
  async reclaimSpace(mode: ReclaimMode): Promise<ReclaimResult> {
    if (mode === "full") return this.run("reclaimSpace", () => this.recorder.reclaimAll());
    const { database, path, recorder, log } = this;
    return reclaimInSteps({ database, path, recorder, log, run: (body) => this.run("reclaimSpace", body) });
  }

  async lastUpkeepAt(): Promise<number | undefined> {
    return this.run("lastUpkeepAt", () => this.recorder.lastUpkeepAt());
  }

  async setLastUpkeepAt(at: number): Promise<void> {
    this.run("setLastUpkeepAt", () => this.recorder.setLastUpkeepAt(at));
  }

  async claimSummaryJob(sessionId: string, job: SummaryJob, lease: SummaryLease): Promise<boolean> {
    return this.run("claimSummaryJob", () => this.jobs.claim(sessionId, job, lease));
  }

  async completeSummaryJob(
    sessionId: string,
    chunkKey: string,
    owner: string,
    prepared: PreparedSummary,
  ): Promise<boolean> {
    return this.run("completeSummaryJob", () => this.jobs.complete(sessionId, chunkKey, owner, prepared));
  }

  async releaseSummaryJob(
    sessionId: string,
    chunkKey: string,
    owner: string,
    options: { attempted?: boolean } = {},
  ): Promise<void> {
    const attempted = options.attempted !== false;
    this.run("releaseSummaryJob", () => this.jobs.release(sessionId, chunkKey, owner, attempted));
  }

  async listSummaryJobs(sessionId: string): Promise<StoredSummaryJob[]> {
    return this.run("listSummaryJobs", () => this.jobs.list(sessionId));
  }

  async deleteSummaryJobs(sessionId: string, chunkKeys: readonly string[]): Promise<number> {
    return this.run("deleteSummaryJobs", () => this.jobs.delete(sessionId, chunkKeys));
  }

  async reserveSummarySpend(sessionId: string, reservation: SpendReservation): Promise<string | undefined> {
    return this.run("reserveSummarySpend", () => this.jobs.reserve(sessionId, reservation));
  }

  async settleSummarySpend(sessionId: string, reservationId: string, tokens: number): Promise<void> {
    this.run("settleSummarySpend", () => this.jobs.settle(sessionId, reservationId, tokens));
  }

  async recordSummaryDebt(sessionId: string, debt: SummaryDebt): Promise<void> {
    this.run("recordSummaryDebt", () => this.jobs.recordDebt(sessionId, debt));
  }

  async summarySpend(sessionId: string, since: number): Promise<SummarySpendTotals> {
    return this.run("summarySpend", () => this.jobs.totals(sessionId, since));
  }

  /** Closes the store; a second call waits for the first. */
  close(): Promise<void> {
    this.closing ??= this.closeNow();
    return this.closing;
  }

  private async closeNow(): Promise<void> {
    this.closed = true;
    this.searchIndex.stop();
    await this.log.close();
    try {
      this.database.close();
    } catch (error) {
      throw new LosslessStoreError("close", this.path, error);
    }
  }

  private run<T>(operation: string, body: () => T): T {
    if (this.closed) throw new LosslessStoreError(operation, this.path, new Error("the store is closed"));
    try {
      return body();
    } catch (error) {
      if (error instanceof LosslessStoreConflictError || error instanceof LosslessStoreError) throw error;
      throw new LosslessStoreError(operation, this.path, error);
    }
  }
}
