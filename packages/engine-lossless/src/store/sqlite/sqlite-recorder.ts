/**
 * The recorder, report and upkeep half of the SQLite store. Its methods are synchronous and run
 * inside the store's error handling (`SqliteLosslessStore.run`), which turns failures into
 * `LosslessStoreError`; the store's methods of the same names only delegate here.
 */
import type Database from "better-sqlite3";
import type {
  DeletedSession,
  NewAssemblyRecord,
  NewCompactionPass,
  ReclaimResult,
  RecordRetention,
  RetentionResult,
  SessionReport,
  StoredAssemblyRecord,
  StoredCompactionPass,
  StoredSessionInfo,
  StoreTotals,
} from "../records.js";
import { emptySessionReport } from "../records.js";
import { prepareRecorderStatements, type RecorderStatements } from "./recorder-statements.js";
import { optimizeSearchIndexes } from "./search-merge.js";
import type { SessionJsonBytes } from "./session-json-bytes.js";
import { truncateWal } from "./wal.js";

/** Most free pages one incremental reclaim returns (64 MB at 4 KB pages), so upkeep stays short. */
const INCREMENTAL_PAGES = 16_384;
const UPKEEP_KEY = "last_upkeep_at";

interface SessionRow {
  id: number;
  created_at: number;
  view_version: number;
  compaction_passes: number;
  tokens_removed: number;
}

interface RecordRow {
  record: string;
  session_id: string;
}

export class SqliteRecorder {
  private readonly statements: RecorderStatements;

  constructor(
    private readonly database: Database.Database,
    private readonly sizeOnDisk: () => number,
    private readonly jsonBytes: SessionJsonBytes,
  ) {
    this.statements = prepareRecorderStatements(database);
  }

  sessionReport(sessionId: string): SessionReport {
    return this.database.transaction(() => {
      const session = this.session(sessionId);
      if (session === undefined) return emptySessionReport();
      const { count } = this.statements.messageCount.get(session.id) as { count: number };
      const bytes = this.jsonBytes.of(
        sessionId,
        () => (this.statements.messageBytes.get(session.id) as { bytes: number }).bytes,
      );
      const kinds = this.statements.summariesByKind.all(session.id) as Array<{
        kind: "leaf" | "condensed";
        count: number;
        depth: number;
      }>;
      const view = this.statements.viewTotals.get(session.id) as {
        items: number;
        tokens: number;
        summary_tokens: number;
        source_tokens: number;
      };
      const countOf = (kind: string) => kinds.find((row) => row.kind === kind)?.count ?? 0;
      return {
        messageCount: count,
        rawJsonBytes: bytes,
        summaryCount: countOf("leaf") + countOf("condensed"),
        summariesByKind: { leaf: countOf("leaf"), condensed: countOf("condensed") },
        deepestSummaryDepth: kinds.reduce((deepest, row) => Math.max(deepest, row.depth), 0),
        summaryTokens: view.summary_tokens,
        summarySourceTokens: view.source_tokens,
        viewItems: view.items,
        viewTokens: view.tokens,
        viewVersion: session.view_version,
        compactionPasses: session.compaction_passes,
        tokensRemovedTotal: session.tokens_removed,
      };
    })();
  }

  storeTotals(): StoreTotals {
    const row = this.statements.storeTotals.get() as Record<string, number>;
    return {
      sessions: row.sessions ?? 0,
      messages: row.messages ?? 0,
      summaries: row.summaries ?? 0,
      compactionPasses: row.compaction_passes ?? 0,
      assemblies: row.assemblies ?? 0,
    };
  }

  listSessions(): StoredSessionInfo[] {
    const rows = this.statements.listSessions.all() as Array<Record<string, number | string>>;
    return rows.map((row) => ({
      sessionId: String(row.session_id),
      createdAt: Number(row.created_at),
      messageCount: Number(row.message_count),
      summaryCount: Number(row.summary_count),
      lastMessageAt: Number(row.last_message_at),
    }));
  }

  recordCompactionPass(sessionId: string, pass: NewCompactionPass): void {
    this.database.transaction(() => {
      const session = this.session(sessionId);
      if (session === undefined) return;
      const inserted = this.statements.insertPass.run(
        pass.passId,
        session.id,
        pass.startedAt,
        JSON.stringify(pass),
      );
      const removed = pass.tokensBefore - pass.tokensAfter;
      const changedView = (pass.outcome === "compacted" || pass.outcome === "short") && removed > 0;
      if (inserted.changes > 0 && changedView) this.statements.countPass.run(removed, session.id);
    })();
  }

  recordAssemblies(
    entries: ReadonlyArray<{ sessionId: string; record: NewAssemblyRecord }>,
    keepPerSession: number,
  ): void {
    this.database.transaction(() => {
      const touched = new Set<number>();
      for (const { sessionId, record } of entries) {
        const session = this.session(sessionId);
        if (session === undefined) continue;
        this.statements.insertAssembly.run(session.id, record.assembledAt, JSON.stringify(record));
        touched.add(session.id);
      }
      for (const session of touched) {
        this.statements.trimAssemblies.run({ session, keep: Math.max(0, Math.floor(keepPerSession)) });
      }
    })();
  }

  listCompactionPasses(query: { sessionId?: string; limit: number }): StoredCompactionPass[] {
    const limit = Math.max(0, Math.floor(query.limit));
    if (query.sessionId === undefined) {
      return (this.statements.listPasses.all(limit) as RecordRow[]).map(toRecord<StoredCompactionPass>);
    }
    const session = this.session(query.sessionId);
    if (session === undefined) return [];
    const rows = this.statements.listPassesOfSession.all(session.id, limit) as RecordRow[];
    return rows.map(toRecord<StoredCompactionPass>);
  }

  readCompactionPass(passId: string): StoredCompactionPass | undefined {
    const row = this.statements.readPass.get(passId) as RecordRow | undefined;
    return row === undefined ? undefined : toRecord<StoredCompactionPass>(row);
  }

  listAssemblies(sessionId: string, limit: number): StoredAssemblyRecord[] {
    const session = this.session(sessionId);
    if (session === undefined) return [];
    const rows = this.statements.listAssemblies.all(
      session.id,
      Math.max(0, Math.floor(limit)),
    ) as RecordRow[];
    return rows.map(toRecord<StoredAssemblyRecord>);
  }

  findSummarySession(summaryId: string): string | undefined {
    const row = this.statements.summarySession.get(summaryId) as { session_id: string } | undefined;
    return row?.session_id;
  }

  pruneRecords(policy: RecordRetention): RetentionResult {
    return this.database.transaction(() => {
      let passesDeleted = 0;
      let assembliesDeleted = 0;
      if (policy.olderThan !== undefined) {
        passesDeleted += this.statements.deletePassesBefore.run(policy.olderThan).changes;
        assembliesDeleted += this.statements.deleteAssembliesBefore.run(policy.olderThan).changes;
      }
      for (const { id } of this.statements.sessionRefs.all() as Array<{ id: number }>) {
        const passes = { session: id, keep: Math.max(0, Math.floor(policy.passesPerSession)) };
        passesDeleted += this.statements.trimPasses.run(passes).changes;
        const assemblies = { session: id, keep: Math.max(0, Math.floor(policy.assembliesPerSession)) };
        assembliesDeleted += this.statements.trimAssemblies.run(assemblies).changes;
      }
      return { passesDeleted, assembliesDeleted };
    })();
  }

  deleteSession(sessionId: string): DeletedSession {
    return this.database.transaction(() => {
      const session = this.session(sessionId);
      if (session === undefined) return { messages: 0, summaries: 0, records: 0 };
      this.statements.unindexMessages.run(session.id);
      this.statements.unindexSummaries.run(session.id);
      this.statements.deleteItems.run(session.id);
      const records =
        this.statements.deleteAssemblies.run(session.id).changes +
        this.statements.deletePasses.run(session.id).changes;
      const summaries = this.statements.deleteSummaries.run(session.id).changes;
      const messages = this.statements.deleteMessages.run(session.id).changes;
      this.statements.deleteSessionRow.run(session.id);
      return { messages, summaries, records };
    })();
  }

  /**
   * A `full` reclaim: merges the full-text indexes into one segment each (`search-merge.ts`),
   * rewrites the file with `VACUUM` (switching it to incremental auto-vacuum, so later upkeep can
   * free space in small steps) and truncates the WAL, waiting for readers. Blocks writers while it
   * runs; for an explicit command. Upkeep's `incremental` reclaim is stepped by the store, ending
   * with `vacuumIncrementally`.
   */
  reclaimAll(): ReclaimResult {
    const bytesBefore = this.sizeOnDisk();
    optimizeSearchIndexes(this.database);
    this.database.pragma("auto_vacuum = INCREMENTAL");
    this.database.exec("VACUUM");
    truncateWal(this.database, true);
    return this.reclaimResult(bytesBefore);
  }

  /**
   * The end of an `incremental` reclaim whose index merges are done: frees at most
   * `INCREMENTAL_PAGES` pages, only when the file was created with incremental auto-vacuum. The
   * store then empties the WAL (off the event loop) and reads the result (`reclaimResult`).
   */
  vacuumIncrementally(): void {
    if (Number(this.database.pragma("auto_vacuum", { simple: true })) === 2) {
      this.database.exec(`PRAGMA incremental_vacuum(${INCREMENTAL_PAGES})`);
    }
  }

  /** What a reclaim that started at `bytesBefore` left. */
  reclaimResult(bytesBefore: number): ReclaimResult {
    const pageSize = Number(this.database.pragma("page_size", { simple: true }));
    const freePages = Number(this.database.pragma("freelist_count", { simple: true }));
    return { bytesBefore, bytesAfter: this.sizeOnDisk(), reclaimableBytes: pageSize * freePages };
  }

  lastUpkeepAt(): number | undefined {
    const row = this.statements.readMeta.get(UPKEEP_KEY) as { value: string } | undefined;
    const value = row === undefined ? Number.NaN : Number(row.value);
    return Number.isFinite(value) ? value : undefined;
  }

  setLastUpkeepAt(at: number): void {
    this.statements.writeMeta.run(UPKEEP_KEY, String(at));
  }

  private session(sessionId: string): SessionRow | undefined {
    return this.statements.sessionRow.get(sessionId) as SessionRow | undefined;
  }
}

function toRecord<Record extends { sessionId: string }>(row: RecordRow): Record {
  return { ...(JSON.parse(row.record) as Omit<Record, "sessionId">), sessionId: row.session_id } as Record;
}
