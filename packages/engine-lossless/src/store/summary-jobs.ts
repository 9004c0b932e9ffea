/**
 * Summary preparation in the store (part of the seam; `store.ts` re-exports these types): leased
 * jobs that make a node before compaction wants it (a chunk's leaf, or the condensed node of a run
 * of summaries), the prepared summaries they
 * leave (stored, not published: the context view does not change), and a per-session ledger of
 * summarizer tokens spent, and not spent because the session's budget was exhausted (debt).
 *
 * Contract, for every implementation (checked by `runLosslessStoreContractSuite`):
 * - A job is named by its session and `chunkKey`. At most one owner holds a job's lease at a time;
 *   claiming is one atomic step, also across processes sharing the store.
 * - A lease ends when its owner completes or releases the job, or when `expiresAt` has passed (an
 *   expired lease is taken over by the next claim: the worker that held it is presumed dead).
 * - A completed job keeps its prepared summary until it is deleted: by `deleteSummaryJobs`, or in
 *   the transaction of the compaction that publishes it (`CompactionWrite.settledJobs`).
 * - Deleting a session deletes its jobs and its ledger.
 * - Ledger sums are read in one statement; a reservation is checked and written in one
 *   transaction, so two workers cannot both pass the same remaining budget.
 */
import type { ContextEdit, NewSummary } from "./store.js";

/**
 * A leaf over raw messages, a condensed node over a run of summaries, or an upgrade: a summary a
 * stand-in wrote in place of the model (spend budget exhausted, a call that failed or timed out:
 * the extractive summarizer for a leaf, its merge of the children for a condensed node), written
 * again by the model from its stored sources (a leaf's messages, a condensed node's children and
 * the messages it covers directly), to replace that one item.
 */
export type SummaryJobKind = "leaf" | "condensed" | "upgrade";

/** A chunk of the context view whose summary a worker prepares. */
export interface SummaryJob {
  /** Names the chunk: the same view items (positions and refs) always get the same key. */
  chunkKey: string;
  kind: SummaryJobKind;
  /** View positions of the chunk's first and last item. */
  firstPosition: number;
  lastPosition: number;
}

/** Who claims a job, the claimer's clock, and until when the lease runs (epoch milliseconds). */
export interface SummaryLease {
  owner: string;
  now: number;
  expiresAt: number;
}

/** A summary made ahead of compaction: the node, and the view edit that publishes it. */
export interface PreparedSummary {
  summary: NewSummary;
  edit: ContextEdit;
}

export interface StoredSummaryJob extends SummaryJob {
  /** The lease holder; absent when nobody holds the job (released, or completed). */
  owner?: string;
  leaseExpiresAt?: number;
  /** How many times the job was claimed. */
  attempts: number;
  /** Present once the job was completed. */
  prepared?: PreparedSummary;
}

/** Summarizer tokens to reserve against a session's budget before a model call. */
export interface SpendReservation {
  /** Epoch milliseconds. */
  at: number;
  tokens: number;
  /** Spend recorded at or after this time counts toward `limitTokens`. */
  windowStart: number;
  limitTokens: number;
}

/** Summaries written without the model because the budget was exhausted. */
export interface SummaryDebt {
  at: number;
  /** Tokens the model calls would have taken (input and the output cap). */
  tokens: number;
  chunks: number;
}

/** Ledger sums of one session over a span of time. */
export interface SummarySpendTotals {
  /** Tokens of model summarizer calls, input and output, by the engine's counter. */
  spentTokens: number;
  /** Reservations not settled to 0 tokens: calls made or in flight (a settled 0 is a call never made). */
  calls: number;
  /** Tokens not spent because the budget was exhausted. */
  debtTokens: number;
  /** Summaries written extractively instead. */
  debtChunks: number;
}
