/**
 * What compaction takes from summary preparation and from the engine around it, as interfaces
 * (compaction does not know where prepared summaries live or how spend is counted):
 * - `LeafSupply`: the prepared summary for a chunk, and whether another worker is making one;
 * - `SummarizerGrants`: the summarizer for one node, behind the spend budget and the limit on
 *   calls in flight.
 */
import type { Summarizer } from "@clew/core";
import type { StoredSummaryJob } from "../store/store.js";
import type { ViewItem } from "../view/session-view.js";
import type { BuiltNode, NodeSettings } from "./build-node.js";
import { chunkKeyOf, preparedNode, spanInView, type ViewSpan } from "./leaf-chunk.js";

export interface LeafSupply {
  /** The node of the prepared summary for exactly these items, with its job's key; or undefined. */
  prepared(items: readonly ViewItem[]): { chunkKey: string; node: BuiltNode } | undefined;
  /** Whether a worker's lease on this chunk's job still runs (its summary is being made). */
  leased(items: readonly ViewItem[]): boolean;
  /**
   * Runs of `items` whose condensation is prepared or being prepared: a leaf upgraded inside one
   * would change the run, and the condensation would then be made again, live.
   */
  condensing(items: readonly ViewItem[]): ViewSpan[];
}

/** The summarizer for one node, and the bookkeeping after it. */
export interface SummarizerGrant {
  summarizer: Summarizer;
  /** The configured model, when `summarizer` stands in for it (the budget had no room). */
  standInFor?: string;
  /** Records what the node's summarizer call took. Called once, whether the node was made or not. */
  settle(): Promise<void>;
}

/** `settings` with the granted summarizer, and the model it stands in for when it is a stand-in. */
export function grantedSettings<Settings extends NodeSettings>(
  settings: Settings,
  grant: SummarizerGrant,
): Settings {
  const standIn = grant.standInFor === undefined ? {} : { standInFor: grant.standInFor };
  return { ...settings, summarizer: grant.summarizer, ...standIn };
}

export interface GrantRequest {
  sessionId: string;
  /** Tokens of what the summarizer is given. */
  inputTokens: number;
  /** The cap of the summary asked for. */
  maxOutputTokens: number;
  /** False when the caller holds a slot of the concurrency limit already. */
  waitForSlot: boolean;
}

export interface SummarizerGrants {
  /** May answer the extractive summarizer instead of the configured one (budget exhausted). */
  grant(request: GrantRequest): Promise<SummarizerGrant>;
  /**
   * The configured model for a call that can wait (an upgrade), or undefined, with no debt
   * recorded, when the budget has no room for it or the configured summarizer is extractive.
   */
  modelGrant(request: GrantRequest): Promise<SummarizerGrant | undefined>;
  /** False when a model call this large can never fit the budget (more than the whole of it). */
  canEverFit(request: GrantRequest): boolean;
}

/** The supply over a session's stored jobs, read when the compaction starts. */
export function leafSupplyOf(jobs: readonly StoredSummaryJob[], now: number): LeafSupply {
  const byKey = new Map(jobs.map((job) => [job.chunkKey, job]));
  return {
    prepared(items) {
      const chunkKey = chunkKeyOf(items);
      const prepared = byKey.get(chunkKey)?.prepared;
      const node = prepared === undefined ? undefined : preparedNode(prepared, items);
      return node === undefined ? undefined : { chunkKey, node };
    },
    leased(items) {
      const job = byKey.get(chunkKeyOf(items));
      return job !== undefined && leaseRuns(job, now);
    },
    condensing: (items) => heldCondensations(items, jobs, now),
  };
}

/** Condensed jobs with a summary made or being made, over runs `items` still holds. */
export function heldCondensations(
  items: readonly ViewItem[],
  jobs: readonly StoredSummaryJob[],
  now: number,
): ViewSpan[] {
  return jobs.filter(
    (job) =>
      job.kind === "condensed" &&
      (job.prepared !== undefined || leaseRuns(job, now)) &&
      spanInView(items, job),
  );
}

/** Whether a worker holds the job now. */
export function leaseRuns(job: StoredSummaryJob, now: number): boolean {
  return job.owner !== undefined && (job.leaseExpiresAt ?? 0) > now;
}
