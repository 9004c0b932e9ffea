/**
 * SQL of summary preparation (jobs, leases, prepared summaries) and the spend ledger, prepared
 * once per connection like `statements.ts`. Tables are those of `job-schema.ts`.
 */
import type Database from "better-sqlite3";

const SQL = {
  sessionRef: "SELECT id FROM sessions WHERE session_id = ?",
  // One statement: the insert, or the takeover of a released or expired lease, happens atomically.
  claimJob: `INSERT INTO summary_jobs
         (session_ref, chunk_key, kind, first_position, last_position, lease_owner, lease_expires_at, attempts)
       VALUES (@session, @chunkKey, @kind, @firstPosition, @lastPosition, @owner, @expiresAt, 1)
       ON CONFLICT (session_ref, chunk_key) DO UPDATE SET
         lease_owner = excluded.lease_owner, lease_expires_at = excluded.lease_expires_at,
         attempts = attempts + 1
       WHERE prepared IS NULL AND (lease_owner IS NULL OR lease_expires_at <= @now)`,
  completeJob: `UPDATE summary_jobs SET prepared = @prepared, lease_owner = NULL, lease_expires_at = NULL
       WHERE session_ref = @session AND chunk_key = @chunkKey AND lease_owner = @owner AND prepared IS NULL`,
  releaseJob: `UPDATE summary_jobs
       SET lease_owner = NULL, lease_expires_at = NULL, attempts = max(0, attempts - @uncounted)
       WHERE session_ref = @session AND chunk_key = @chunkKey AND lease_owner = @owner`,
  listJobs: `SELECT chunk_key, kind, first_position, last_position, lease_owner, lease_expires_at, attempts, prepared
       FROM summary_jobs WHERE session_ref = ? ORDER BY first_position, chunk_key`,
  deleteJobs:
    "DELETE FROM summary_jobs WHERE session_ref = ? AND chunk_key IN (SELECT value FROM json_each(?))",
  spentSince: `SELECT coalesce(sum(tokens), 0) AS tokens FROM summary_spend
       WHERE session_ref = ? AND kind = 'spent' AND at >= ?`,
  insertSpend: "INSERT INTO summary_spend (session_ref, at, kind, tokens, chunks) VALUES (?, ?, ?, ?, ?)",
  settleSpend: "UPDATE summary_spend SET tokens = ? WHERE id = ? AND session_ref = ? AND kind = 'spent'",
  spendTotals: `SELECT
         coalesce(sum(CASE WHEN kind = 'spent' THEN tokens END), 0) AS spent_tokens,
         count(CASE WHEN kind = 'spent' AND tokens > 0 THEN 1 END) AS calls,
         coalesce(sum(CASE WHEN kind = 'debt' THEN tokens END), 0) AS debt_tokens,
         coalesce(sum(CASE WHEN kind = 'debt' THEN chunks END), 0) AS debt_chunks
       FROM summary_spend WHERE session_ref = ? AND at >= ?`,
};

export type JobStatements = { [Name in keyof typeof SQL]: Database.Statement };

export function prepareJobStatements(database: Database.Database): JobStatements {
  const entries = Object.entries(SQL).map(([name, sql]) => [name, database.prepare(sql)]);
  return Object.fromEntries(entries) as JobStatements;
}
