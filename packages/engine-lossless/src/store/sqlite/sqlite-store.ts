/**
 * The SQLite implementation of the store seam (better-sqlite3): one database file per agent, WAL,
 * one short transaction per write. better-sqlite3 is synchronous, so each call finishes before
 * the promise it returns settles and no two writes of this process ever interleave.
 */
import { statSync } from "node:fs";
import Database from "better-sqlite3";
import { LosslessStoreConflictError, LosslessStoreError } from "../../errors.js";
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
  AppendMessagesResult,
  CompactionWrite,
  ContextEdit,
  ContextItemRef,
  ContextView,
  LosslessStore,
  MessageRangeQuery,
  NewStoredMessage,
  NewSummary,
  SearchHit,
  SessionStats,
  StoredMessage,
  StoredSummary,
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
import { matchExpression } from "./match-expression.js";
import {
  type ContextItemRow,
  encodeAnchors,
  type MessageRow,
  type SummaryRow,
  toStoredContextItem,
  toStoredMessage,
  toStoredSummary,
} from "./rows.js";
import { configureConnection, migrate } from "./schema.js";
import { DEFAULT_SEARCH_INDEX_OPTIONS, MessageSearchIndex } from "./search-index.js";
import { SqliteRecorder } from "./sqlite-recorder.js";
import { SqliteSummaryJobs } from "./sqlite-summary-jobs.js";
import { prepareStatements, type Statements } from "./statements.js";

export interface SqliteStoreOptions {
  /** Epoch milliseconds for `created_at` of new sessions. Defaults to `Date.now`. */
  now?: () => number;
  /**
   * How long after a write new messages are indexed for search in the background (ms; default
   * 50), or `false` to index them only when a search needs them. Searches are complete either way.
   */
  backgroundIndexDelayMs?: number | false;
}

interface SessionRow {
  id: number;
  next_seq: number;
  next_position: number;
  view_version: number;
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
  private readonly statements: Statements;
  private readonly recorder: SqliteRecorder;
  private readonly jobs: SqliteSummaryJobs;
  private readonly searchIndex: MessageSearchIndex;
  private closed = false;

  constructor(
    private readonly database: Database.Database,
    private readonly path: string,
    private readonly now: () => number,
    backgroundIndexDelayMs: number | false = DEFAULT_SEARCH_INDEX_OPTIONS.backgroundDelayMs,
  ) {
    this.statements = prepareStatements(database);
    this.recorder = new SqliteRecorder(database, () => fileBytes(path));
    this.jobs = new SqliteSummaryJobs(database);
    this.searchIndex = new MessageSearchIndex(database, {
      ...DEFAULT_SEARCH_INDEX_OPTIONS,
      backgroundDelayMs: backgroundIndexDelayMs,
      path: path === ":memory:" || path === "" ? undefined : path,
    });
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
  ): Promise<AppendMessagesResult> {
    const result = this.run("appendMessages", () =>
      this.database.transaction(() => {
        const session = this.ensureSession(sessionId);
        let seq = session.next_seq;
        let position = session.next_position;
        const inserted: AppendMessagesResult["inserted"] = [];
        messages.forEach((message, index) => {
          const result = this.statements.insertMessage.run(
            session.id,
            seq,
            Buffer.from(message.identity, "hex"),
            message.role,
            message.createdAt,
            message.tokens,
            message.json,
          );
          if (result.changes === 0) return;
          this.statements.insertMessageItem.run(session.id, position, result.lastInsertRowid, message.tokens);
          inserted.push({ index, seq, position });
          seq += 1;
          position += 1;
        });
        if (inserted.length === 0) return { inserted, viewVersion: session.view_version };
        const viewVersion = session.view_version + 1;
        this.statements.updateSessionCounters.run(seq, position, viewVersion, session.id);
        return { inserted, viewVersion };
      })(),
    );
    // Indexing is left out of the write: it costs more than the insert (see search-index.ts).
    if (result.inserted.length > 0) this.searchIndex.afterWrite(result.inserted.length);
    return result;
  }

  async applyCompaction(sessionId: string, write: CompactionWrite): Promise<{ viewVersion: number }> {
    return this.run("applyCompaction", () =>
      this.database.transaction(() => {
        const session = this.findSession(sessionId);
        if (session === undefined) throw new LosslessStoreConflictError(sessionId, "the session has no view");
        for (const summary of write.summaries) this.insertSummary(session.id, summary);
        for (const edit of write.edits) this.applyEdit(sessionId, session.id, edit);
        if (write.settledJobs !== undefined) this.jobs.deleteByRef(session.id, write.settledJobs);
        this.statements.bumpViewVersion.run(session.id);
        return { viewVersion: session.view_version + 1 };
      })(),
    );
  }

  async readContextView(sessionId: string): Promise<ContextView> {
    return this.run("readContextView", () =>
      this.database.transaction(() => {
        const session = this.findSession(sessionId);
        if (session === undefined) return { version: 0, items: [] };
        const rows = this.statements.readView.all(session.id) as ContextItemRow[];
        return { version: session.view_version, items: rows.map(toStoredContextItem) };
      })(),
    );
  }

  async viewVersion(sessionId: string): Promise<number> {
    return this.run("viewVersion", () => this.findSession(sessionId)?.view_version ?? 0);
  }

  async sessionStats(sessionId: string): Promise<SessionStats> {
    return this.run("sessionStats", () => {
      const session = this.findSession(sessionId);
      if (session === undefined) return { messageCount: 0, summaryCount: 0, viewVersion: 0 };
      const count = (statement: Database.Statement) => (statement.get(session.id) as { count: number }).count;
      return {
        messageCount: count(this.statements.countMessages),
        summaryCount: count(this.statements.countSummaries),
        viewVersion: session.view_version,
      };
    });
  }

  async readMessages(sessionId: string, seqs: readonly number[]): Promise<StoredMessage[]> {
    return this.run("readMessages", () => {
      const session = this.findSession(sessionId);
      if (session === undefined || seqs.length === 0) return [];
      const rows = this.statements.readMessagesBySeq.all(session.id, JSON.stringify(seqs)) as MessageRow[];
      return rows.map(toStoredMessage);
    });
  }

  async readMessageRange(sessionId: string, query: MessageRangeQuery): Promise<StoredMessage[]> {
    return this.run("readMessageRange", () => {
      const session = this.findSession(sessionId);
      if (session === undefined || query.limit <= 0) return [];
      const ranges = query.ranges;
      if (ranges !== undefined && ranges.length === 0) return [];
      const rows = this.statements.readMessageRange.all({
        session: session.id,
        afterSeq: query.afterSeq ?? 0,
        firstSeq: ranges === undefined ? 0 : Math.min(...ranges.map(([first]) => first)),
        lastSeq: ranges === undefined ? Number.MAX_SAFE_INTEGER : Math.max(...ranges.map(([, last]) => last)),
        fromTime: query.fromTime ?? Number.MIN_SAFE_INTEGER,
        toTime: query.toTime ?? Number.MAX_SAFE_INTEGER,
        ranges: ranges === undefined ? null : JSON.stringify(ranges),
        limit: Math.floor(query.limit),
      }) as MessageRow[];
      return rows.map(toStoredMessage);
    });
  }

  async readSummaries(sessionId: string, summaryIds: readonly string[]): Promise<StoredSummary[]> {
    return this.run("readSummaries", () => {
      const session = this.findSession(sessionId);
      if (session === undefined || summaryIds.length === 0) return [];
      const rows = this.statements.readSummaries.all(session.id, JSON.stringify(summaryIds)) as SummaryRow[];
      const byId = new Map(rows.map((row) => [row.summary_id, toStoredSummary(row)]));
      return summaryIds.flatMap((id) => byId.get(id) ?? []);
    });
  }

  async findLeafSummaries(sessionId: string, seq: number): Promise<StoredSummary[]> {
    return this.run("findLeafSummaries", () => {
      const session = this.findSession(sessionId);
      if (session === undefined) return [];
      const rows = this.statements.findLeafSummaries.all(session.id, seq, seq) as SummaryRow[];
      return rows
        .map(toStoredSummary)
        .filter((summary) => summary.sourceRanges.some(([first, last]) => seq >= first && seq <= last));
    });
  }

  async searchMessages(
    sessionId: string,
    terms: readonly string[],
    limit: number,
  ): Promise<SearchHit<number>[]> {
    return this.run("searchMessages", () => {
      const expression = matchExpression(terms);
      const session = this.findSession(sessionId);
      if (expression === undefined || session === undefined) return [];
      this.searchIndex.catchUp();
      const rows = this.statements.searchMessages.all(expression, session.id, limit) as Array<{
        key: number;
        rank: number;
      }>;
      return rows.map((row) => ({ key: row.key, score: -row.rank }));
    });
  }

  async searchSummaries(
    sessionId: string,
    terms: readonly string[],
    field: "content" | "anchors",
    limit: number,
  ): Promise<SearchHit<string>[]> {
    return this.run("searchSummaries", () => {
      const expression = matchExpression(terms, field);
      const session = this.findSession(sessionId);
      if (expression === undefined || session === undefined) return [];
      const rows = this.statements.searchSummaries.all(expression, session.id, limit) as Array<{
        key: string;
        rank: number;
      }>;
      return rows.map((row) => ({ key: row.key, score: -row.rank }));
    });
  }

  async settle(): Promise<void> {
    this.run("settle", () => {
      this.searchIndex.catchUp();
      this.searchIndex.truncateWalIfLarge();
    });
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
        return this.recorder.deleteSession(sessionId);
      })(),
    );
  }

  async reclaimSpace(mode: ReclaimMode): Promise<ReclaimResult> {
    return this.run("reclaimSpace", () => this.recorder.reclaimSpace(mode));
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

  async releaseSummaryJob(sessionId: string, chunkKey: string, owner: string): Promise<void> {
    this.run("releaseSummaryJob", () => this.jobs.release(sessionId, chunkKey, owner));
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

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.searchIndex.stop();
    try {
      this.searchIndex.truncateWal();
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

  private findSession(sessionId: string): SessionRow | undefined {
    return this.statements.findSession.get(sessionId) as SessionRow | undefined;
  }

  private ensureSession(sessionId: string): SessionRow {
    const existing = this.findSession(sessionId);
    if (existing !== undefined) return existing;
    this.statements.insertSession.run(sessionId, this.now());
    return this.findSession(sessionId) as SessionRow;
  }

  private insertSummary(sessionRef: number, summary: NewSummary): void {
    const seqs = summary.sourceRanges.flat();
    const result = this.statements.insertSummary.run(
      summary.summaryId,
      sessionRef,
      summary.kind,
      summary.depth,
      summary.content,
      summary.tokens,
      seqs.length === 0 ? 0 : Math.min(...seqs),
      seqs.length === 0 ? 0 : Math.max(...seqs),
      JSON.stringify(summary.sourceRanges),
      summary.sourceCount,
      summary.sourceTokens,
      JSON.stringify(summary.childIds),
      encodeAnchors(summary.anchors),
      summary.earliestAt,
      summary.latestAt,
      summary.summarizer,
      summary.createdAt,
    );
    this.statements.indexSummary.run(result.lastInsertRowid);
    for (const childId of summary.childIds) {
      this.statements.setSummaryParent.run(summary.summaryId, sessionRef, childId);
    }
  }

  /** Checks that the edit still matches the view, then swaps its items for one summary item. */
  private applyEdit(sessionId: string, sessionRef: number, edit: ContextEdit): void {
    const first = edit.replace[0];
    const last = edit.replace.at(-1);
    if (first === undefined || last === undefined) {
      throw new LosslessStoreConflictError(sessionId, `edit for ${edit.summaryId} replaces no items`);
    }
    for (const { position, ref } of edit.replace) {
      const row = this.statements.itemAt.get(sessionRef, position) as
        | { seq: number | null; summary_id: string | null }
        | undefined;
      if (row === undefined || !sameRef(row, ref)) {
        throw new LosslessStoreConflictError(
          sessionId,
          `position ${position} no longer holds ${describeRef(ref)}`,
        );
      }
    }
    const between = this.statements.countItemsBetween.get(sessionRef, first.position, last.position) as {
      count: number;
    };
    if (between.count !== edit.replace.length) {
      throw new LosslessStoreConflictError(
        sessionId,
        `positions ${first.position}..${last.position} are not ${edit.replace.length} adjacent items`,
      );
    }
    const summaryRow = this.statements.summaryRowId.get(sessionRef, edit.summaryId) as
      | { id: number }
      | undefined;
    if (summaryRow === undefined) {
      throw new LosslessStoreConflictError(sessionId, `summary ${edit.summaryId} does not exist`);
    }
    this.statements.deleteItemsBetween.run(sessionRef, first.position, last.position);
    this.statements.insertSummaryItem.run(sessionRef, first.position, summaryRow.id, edit.tokens, edit.json);
  }
}

/** Bytes of the database file with its WAL and shared-memory files; 0 in memory. */
function fileBytes(path: string): number {
  if (path === ":memory:" || path === "") return 0;
  let total = 0;
  for (const suffix of ["", "-wal", "-shm"]) {
    try {
      total += statSync(`${path}${suffix}`).size;
    } catch {
      // The WAL and shared-memory files exist only while the database is open in WAL mode.
    }
  }
  return total;
}

function sameRef(row: { seq: number | null; summary_id: string | null }, ref: ContextItemRef): boolean {
  return ref.kind === "message"
    ? row.summary_id === null && row.seq === ref.seq
    : row.summary_id === ref.summaryId;
}

function describeRef(ref: ContextItemRef): string {
  return ref.kind === "message" ? `message ${ref.seq}` : `summary ${ref.summaryId}`;
}
