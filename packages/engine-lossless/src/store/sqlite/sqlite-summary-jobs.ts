/**
 * Summary jobs and the spend ledger over SQLite (the store's methods call these inside its
 * error handling). Claims and reservations are single atomic steps: a claim is one upsert, and a
 * reservation is checked and written in one `BEGIN IMMEDIATE` transaction, which takes the write
 * lock before reading, so a second process cannot read the same remaining budget in between.
 */
import type Database from "better-sqlite3";
import type {
  PreparedSummary,
  SpendReservation,
  StoredSummaryJob,
  SummaryDebt,
  SummaryJob,
  SummaryLease,
  SummarySpendTotals,
} from "../summary-jobs.js";
import { type JobStatements, prepareJobStatements } from "./job-statements.js";

interface JobRow {
  chunk_key: string;
  kind: "leaf";
  first_position: number;
  last_position: number;
  lease_owner: string | null;
  lease_expires_at: number | null;
  attempts: number;
  prepared: string | null;
}

interface TotalsRow {
  spent_tokens: number;
  calls: number;
  debt_tokens: number;
  debt_chunks: number;
}

export class SqliteSummaryJobs {
  private readonly statements: JobStatements;

  constructor(private readonly database: Database.Database) {
    this.statements = prepareJobStatements(database);
  }

  claim(sessionId: string, job: SummaryJob, lease: SummaryLease): boolean {
    const session = this.sessionRef(sessionId);
    if (session === undefined) return false;
    const result = this.statements.claimJob.run({ session, ...job, ...lease });
    return result.changes > 0;
  }

  complete(sessionId: string, chunkKey: string, owner: string, prepared: PreparedSummary): boolean {
    const session = this.sessionRef(sessionId);
    if (session === undefined) return false;
    const json = JSON.stringify(prepared);
    return this.statements.completeJob.run({ session, chunkKey, owner, prepared: json }).changes > 0;
  }

  release(sessionId: string, chunkKey: string, owner: string, attempted: boolean): void {
    const session = this.sessionRef(sessionId);
    const uncounted = attempted ? 0 : 1;
    if (session !== undefined) this.statements.releaseJob.run({ session, chunkKey, owner, uncounted });
  }

  list(sessionId: string): StoredSummaryJob[] {
    const session = this.sessionRef(sessionId);
    if (session === undefined) return [];
    return (this.statements.listJobs.all(session) as JobRow[]).map(toStoredJob);
  }

  delete(sessionId: string, chunkKeys: readonly string[]): number {
    const session = this.sessionRef(sessionId);
    if (session === undefined || chunkKeys.length === 0) return 0;
    return this.deleteByRef(session, chunkKeys);
  }

  /** For a compaction's transaction, which has the session's row id already. */
  deleteByRef(sessionRef: number, chunkKeys: readonly string[]): number {
    return this.statements.deleteJobs.run(sessionRef, JSON.stringify(chunkKeys)).changes;
  }

  reserve(sessionId: string, reservation: SpendReservation): string | undefined {
    return this.database
      .transaction(() => {
        const session = this.sessionRef(sessionId);
        if (session === undefined) return undefined;
        const spent = this.statements.spentSince.get(session, reservation.windowStart) as { tokens: number };
        if (spent.tokens + reservation.tokens > reservation.limitTokens) return undefined;
        const row = this.statements.insertSpend.run(session, reservation.at, "spent", reservation.tokens, 0);
        return String(row.lastInsertRowid);
      })
      .immediate();
  }

  settle(sessionId: string, reservationId: string, tokens: number): void {
    const session = this.sessionRef(sessionId);
    if (session !== undefined) this.statements.settleSpend.run(tokens, Number(reservationId), session);
  }

  recordDebt(sessionId: string, debt: SummaryDebt): void {
    const session = this.sessionRef(sessionId);
    if (session !== undefined)
      this.statements.insertSpend.run(session, debt.at, "debt", debt.tokens, debt.chunks);
  }

  totals(sessionId: string, since: number): SummarySpendTotals {
    const session = this.sessionRef(sessionId);
    if (session === undefined) return { spentTokens: 0, calls: 0, debtTokens: 0, debtChunks: 0 };
    const row = this.statements.spendTotals.get(session, since) as TotalsRow;
    return {
      spentTokens: row.spent_tokens,
      calls: row.calls,
      debtTokens: row.debt_tokens,
      debtChunks: row.debt_chunks,
    };
  }

  private sessionRef(sessionId: string): number | undefined {
    return (this.statements.sessionRef.get(sessionId) as { id: number } | undefined)?.id;
  }
}

function toStoredJob(row: JobRow): StoredSummaryJob {
  return {
    chunkKey: row.chunk_key,
    kind: row.kind,
    firstPosition: row.first_position,
    lastPosition: row.last_position,
    ...(row.lease_owner === null ? {} : { owner: row.lease_owner }),
    ...(row.lease_expires_at === null ? {} : { leaseExpiresAt: row.lease_expires_at }),
    attempts: row.attempts,
    ...(row.prepared === null ? {} : { prepared: JSON.parse(row.prepared) as PreparedSummary }),
  };
}
