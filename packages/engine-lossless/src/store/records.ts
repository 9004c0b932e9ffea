/**
 * What the store keeps beside the conversation itself: the flight recorder (one record per
 * compaction pass, one per assembly), the per-session report, and what retention and space
 * reclaiming answer. Part of the store seam (`store.ts` re-exports these types); plain data, so
 * every store can keep a record as one JSON document plus the few columns it filters on.
 */

/** What started a compaction pass: background maintenance, the host's compact, or a forced compact. */
export type CompactionTrigger = "maintain" | "compact" | "force";

/**
 * The deepest kind of work a pass did: `leaf` summaries only, `condensed` nodes, one `root` node
 * standing for all history before the fresh tail, or `fallback` when the configured summarizer
 * failed and a rule-based text was written instead. `upgrade` when it only swapped summaries for
 * the model's rewrites of them (`outputs.upgraded`); `none` when the pass wrote nothing.
 */
export type CompactionLevel = "none" | "leaf" | "condensed" | "root" | "fallback" | "upgrade";

/**
 * How a pass ended: `compacted` (the view got smaller and reached the target), `short` (smaller or
 * not, the target was not reached; `reason` says why), `unchanged` (the view got no smaller:
 * nothing to do, or only summaries rewritten in place, `outputs.upgraded`), `aborted` (the
 * caller cancelled; finished nodes were still published), `failed` (an error; nothing published).
 */
export type CompactionOutcomeKind = "compacted" | "short" | "unchanged" | "aborted" | "failed";

/** One compaction pass, as the engine records it. */
export interface NewCompactionPass {
  /** `pass_` and 16 hex characters; unique across the store. */
  passId: string;
  trigger: CompactionTrigger;
  level: CompactionLevel;
  outcome: CompactionOutcomeKind;
  reason?: string;
  /** Epoch milliseconds. */
  startedAt: number;
  durationMs: number;
  /** Tokens of the view (as assembled) before and after the pass. */
  tokensBefore: number;
  tokensAfter: number;
  targetTokens: number;
  budgetTokens: number;
  /** The view items the pass replaced (items it made and replaced again are not counted). */
  inputs: { messages: number; summaries: number; tokens: number };
  /**
   * The summaries it wrote, by kind, and their tokens; `prepared` of the leaves and condensed
   * nodes were published from summaries made in the background, the rest were made during the
   * pass; `upgraded` summaries (in neither `leaf` nor `condensed`) were written again by the model,
   * in the background, in place of summaries written without it. `prepared` and
   * `upgraded` are absent in records of versions that did not count them.
   */
  outputs: { leaf: number; condensed: number; tokens: number; prepared?: number; upgraded?: number };
  summaryIds: string[];
  /** The configured summarizer (`extractive`, `model:<provider>/<id>`). */
  summarizer: string;
  /** Which summarizers wrote the summaries (differs from `summarizer` after a fallback). */
  writtenBy: string[];
  /** Dollars, when the summarizer reports them; absent when unknown. */
  costUsd?: number;
  viewVersionBefore: number;
  viewVersionAfter: number;
  /**
   * The seq of the newest stored message when the pass started (absent in records of older
   * versions and for an empty view): where the replies around the pass are looked for, to show
   * what it did to the provider's prompt cache (`inspect/provider-cache.ts`).
   */
  newestSeq?: number;
}

export interface StoredCompactionPass extends NewCompactionPass {
  sessionId: string;
}

/** Items and tokens of one assembled context by kind: stored raw messages, summaries, the rest. */
export interface KindTally {
  raw: number;
  summary: number;
  /** Host messages not stored yet, and the omission note. */
  other: number;
}

/** One call of `assemble`, as the engine records it. */
export interface NewAssemblyRecord {
  /** Epoch milliseconds. */
  assembledAt: number;
  durationMs: number;
  viewVersion: number;
  /** What assembly could fill (the budget less the recall policy and the margin). */
  budgetTokens: number;
  tokens: number;
  items: KindTally;
  tokensByKind: KindTally;
  /** Stored items left out because they did not fit, oldest first, and what they were. */
  evicted: { items: number; raw: number; summaries: number; first?: string; last?: string };
  /** Messages shortened for display because the newest group alone did not fit. */
  clipped: number;
  /** Tool results never assembled because their call is not in their group. */
  orphans: number;
  /**
   * Whether the stored part of this context starts with the stored part of the session's previous
   * assembly (same items, same note), so the provider's prompt cache still holds; null for the
   * first assembly a process recorded for the session.
   */
  prefixStable: boolean | null;
}

export interface StoredAssemblyRecord extends NewAssemblyRecord {
  sessionId: string;
}

/** One session's figures, read in one call. */
export interface SessionReport {
  messageCount: number;
  /** Bytes of the stored message JSON (UTF-8). */
  rawJsonBytes: number;
  summaryCount: number;
  summariesByKind: { leaf: number; condensed: number };
  /** Depth of the deepest stored summary (a leaf is 0); 0 without summaries. */
  deepestSummaryDepth: number;
  /** Tokens of the summaries in the view, and of the raw messages they stand for. */
  summaryTokens: number;
  summarySourceTokens: number;
  viewItems: number;
  viewTokens: number;
  viewVersion: number;
  /** Recorded passes that changed the view, over the session's life (retention keeps this). */
  compactionPasses: number;
  /** Tokens those passes removed from the view, in total. */
  tokensRemovedTotal: number;
}

/** The report of a session never written. */
export function emptySessionReport(): SessionReport {
  return {
    messageCount: 0,
    rawJsonBytes: 0,
    summaryCount: 0,
    summariesByKind: { leaf: 0, condensed: 0 },
    deepestSummaryDepth: 0,
    summaryTokens: 0,
    summarySourceTokens: 0,
    viewItems: 0,
    viewTokens: 0,
    viewVersion: 0,
    compactionPasses: 0,
    tokensRemovedTotal: 0,
  };
}

/** A session as listed for pruning and reports. */
export interface StoredSessionInfo {
  sessionId: string;
  createdAt: number;
  messageCount: number;
  summaryCount: number;
  /** `createdAt` of the newest message; the session's `createdAt` without messages. */
  lastMessageAt: number;
}

export interface StoreTotals {
  sessions: number;
  messages: number;
  summaries: number;
  compactionPasses: number;
  assemblies: number;
}

/** What retention keeps of the recorder. Messages and summaries are never touched by it. */
export interface RecordRetention {
  /** Newest compaction-pass records kept per session. */
  passesPerSession: number;
  /** Newest assembly records kept per session. */
  assembliesPerSession: number;
  /** Records made before this (epoch milliseconds) are deleted; none by age when absent. */
  olderThan?: number;
}

export interface RetentionResult {
  passesDeleted: number;
  assembliesDeleted: number;
}

export interface DeletedSession {
  messages: number;
  summaries: number;
  records: number;
}

/**
 * `incremental` returns free pages to the file system in small steps (cheap, may do nothing when
 * the store cannot); `full` rewrites the whole store (slow, blocks writers while it runs).
 */
export type ReclaimMode = "incremental" | "full";

export interface ReclaimResult {
  bytesBefore: number;
  bytesAfter: number;
  /** Space the store holds but does not use, after the call (0 when it cannot tell). */
  reclaimableBytes: number;
}
