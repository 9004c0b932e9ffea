/**
 * The SQLite implementation of the store seam (better-sqlite3): one database file per agent, WAL,
 * one short transaction per write. better-sqlite3 is synchronous, so each call finishes before
 * the promise it returns settles and no two writes of this process ever interleave.
 */
import { statSync } from "node:fs";
import Database from "better-sqlite3";
import { LosslessStoreConflictError, LosslessStoreError } from "../../errors.js";
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
import { prepareStatements, type Statements } from "./statements.js";

export interface SqliteStoreOptions {
  /** Epoch milliseconds for `created_at` of new sessions. Defaults to `Date.now`. */
  now?: () => number;
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
    configureConnection(database);
    migrate(database);
    return new SqliteLosslessStore(database, path, options.now ?? Date.now);
  } catch (error) {
    database?.close();
    throw new LosslessStoreError("open", path, error);
  }
}

export class SqliteLosslessStore implements LosslessStore {
  readonly kind = "sqlite";
  private readonly statements: Statements;
  private closed = false;

  constructor(
    private readonly database: Database.Database,
    private readonly path: string,
    private readonly now: () => number,
  ) {
    this.statements = prepareStatements(database);
  }

  async appendMessages(
    sessionId: string,
    messages: readonly NewStoredMessage[],
  ): Promise<AppendMessagesResult> {
    return this.run("appendMessages", () =>
      this.database.transaction(() => {
        const session = this.ensureSession(sessionId);
        let seq = session.next_seq;
        let position = session.next_position;
        let firstRowId: number | bigint | undefined;
        let lastRowId: number | bigint = 0;
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
          firstRowId ??= result.lastInsertRowid;
          lastRowId = result.lastInsertRowid;
          this.statements.insertMessageItem.run(session.id, position, result.lastInsertRowid, message.tokens);
          inserted.push({ index, seq, position });
          seq += 1;
          position += 1;
        });
        if (firstRowId === undefined) return { inserted, viewVersion: session.view_version };
        this.statements.indexMessages.run(firstRowId, lastRowId);
        const viewVersion = session.view_version + 1;
        this.statements.updateSessionCounters.run(seq, position, viewVersion, session.id);
        return { inserted, viewVersion };
      })(),
    );
  }

  async applyCompaction(sessionId: string, write: CompactionWrite): Promise<{ viewVersion: number }> {
    return this.run("applyCompaction", () =>
      this.database.transaction(() => {
        const session = this.findSession(sessionId);
        if (session === undefined) throw new LosslessStoreConflictError(sessionId, "the session has no view");
        for (const summary of write.summaries) this.insertSummary(session.id, summary);
        for (const edit of write.edits) this.applyEdit(sessionId, session.id, edit);
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

  async sizeOnDisk(): Promise<number> {
    return this.run("sizeOnDisk", () => {
      if (this.path === ":memory:" || this.path === "") return 0;
      let total = 0;
      for (const suffix of ["", "-wal", "-shm"]) {
        try {
          total += statSync(`${this.path}${suffix}`).size;
        } catch {
          // The WAL and shared-memory files exist only while the database is open in WAL mode.
        }
      }
      return total;
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
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

function sameRef(row: { seq: number | null; summary_id: string | null }, ref: ContextItemRef): boolean {
  return ref.kind === "message"
    ? row.summary_id === null && row.seq === ref.seq
    : row.summary_id === ref.summaryId;
}

function describeRef(ref: ContextItemRef): string {
  return ref.kind === "message" ? `message ${ref.seq}` : `summary ${ref.summaryId}`;
}
