/**
 * The store seam of the lossless engine: what the engine needs from a database, and nothing that
 * only one database can do. SQLite (`sqlite/`) is the first implementation; a Postgres store will
 * follow, so query syntax, row ids and pragmas stay below this file.
 *
 * Contract, for every implementation (checked by `runLosslessStoreContractSuite`):
 * - One store holds one agent's sessions. Sessions are created on first write; reading a session
 *   that was never written answers empty (version 0, no items, no messages), never throws.
 * - Messages are immutable. `identity` is unique across the store: appending a message whose
 *   identity is stored already changes nothing (not even the view version).
 * - Every write is one short transaction: it happens completely or not at all. Writes never wait
 *   on anything but the database.
 * - The context view is an ordered list of items per session. `appendMessages` adds one raw item
 *   per new message at the end; `applyCompaction` replaces contiguous runs with summary items. Each
 *   write that changes the view increments the session's view version by exactly one.
 * - Sequence numbers (`seq`) count a session's messages from 1 in storage order and never change.
 * - Reads return what the last completed write left; they never see half a write.
 * - Migrations run when a store is opened, never inside these methods.
 * - Failures throw `LosslessStoreError` (the operation is named); a compaction whose edits no
 *   longer match the view throws `LosslessStoreConflictError` and applies nothing.
 * - `close` is idempotent; any other call after it throws `LosslessStoreError`.
 */

/** A message to store, prepared by the engine. */
export interface NewStoredMessage {
  /** Stable identity (64 hex characters): the same message of the same session always gets it. */
  identity: string;
  role: string;
  /** Epoch milliseconds: the message's own timestamp, else when it was ingested. */
  createdAt: number;
  /** Tokens the message costs in context, by the engine's counter. */
  tokens: number;
  /** The message as canonical JSON; returned byte for byte by every read. */
  json: string;
}

export interface StoredMessage {
  seq: number;
  identity: string;
  role: string;
  createdAt: number;
  tokens: number;
  json: string;
}

export interface AppendMessagesResult {
  /** The messages that were new, in input order: their input index, seq and view position. */
  inserted: Array<{ index: number; seq: number; position: number }>;
  /** The session's view version after the write (unchanged when nothing was new). */
  viewVersion: number;
}

/** An identifier a summary must keep verbatim, with the seqs of the messages it occurs in. */
export interface SummaryAnchor {
  value: string;
  messages: number[];
}

export type SummaryKind = "leaf" | "condensed";

/** A node of the summary DAG. Leaves cover messages; condensed nodes cover summaries. */
export interface NewSummary {
  /** `sum_` and 16 hex characters; unique across the store. */
  summaryId: string;
  kind: SummaryKind;
  /** 0 for leaves; one more than the deepest child for condensed nodes. */
  depth: number;
  /** The summary text (without the envelope the model sees). */
  content: string;
  /** Tokens of the rendered context item. */
  tokens: number;
  /** Covered message seqs as inclusive `[first, last]` ranges, ascending and disjoint. */
  sourceRanges: Array<[number, number]>;
  sourceCount: number;
  /** Tokens of the covered messages when they were raw. */
  sourceTokens: number;
  /** Summaries this node condenses, oldest first; empty for leaves. */
  childIds: string[];
  anchors: SummaryAnchor[];
  /** Epoch milliseconds of the oldest and newest covered message. */
  earliestAt: number;
  latestAt: number;
  /** Which summarizer wrote `content` (`extractive`, `model:<provider>/<id>`, `digest`). */
  summarizer: string;
  createdAt: number;
}

export interface StoredSummary extends NewSummary {
  /** The condensed node that covers this one, once there is one. */
  parentId: string | undefined;
}

export type ContextItemRef = { kind: "message"; seq: number } | { kind: "summary"; summaryId: string };

/** One item of a session's context view, with what assembly needs and no further lookups. */
export interface StoredContextItem {
  position: number;
  ref: ContextItemRef;
  tokens: number;
  /** The message's `createdAt`, or the summary's `latestAt`. */
  createdAt: number;
  /** The message the model sees, serialized: the message itself, or the rendered summary. */
  json: string;
  /** Present for summary items. */
  summary?: {
    kind: SummaryKind;
    depth: number;
    content: string;
    anchors: SummaryAnchor[];
    sourceRanges: Array<[number, number]>;
    sourceCount: number;
    sourceTokens: number;
    earliestAt: number;
    latestAt: number;
  };
}

export interface ContextView {
  version: number;
  items: StoredContextItem[];
}

/** Replace the items at `replace` (adjacent in the view, in order) by one summary item. */
export interface ContextEdit {
  replace: Array<{ position: number; ref: ContextItemRef }>;
  summaryId: string;
  tokens: number;
  /** The rendered summary message as JSON. */
  json: string;
}

export interface CompactionWrite {
  /** Inserted first, so edits may reference them. */
  summaries: NewSummary[];
  /** Applied in order; an edit may replace the item an earlier edit created. */
  edits: ContextEdit[];
}

/** Messages of one session by seq range and time, in seq order, a page at a time. */
export interface MessageRangeQuery {
  /** Inclusive seq ranges; all messages when absent. */
  ranges?: Array<[number, number]>;
  /** Inclusive bounds on `createdAt` (epoch milliseconds). */
  fromTime?: number;
  toTime?: number;
  /** Only messages after this seq (the cursor of the previous page). */
  afterSeq?: number;
  limit: number;
}

export interface SessionStats {
  messageCount: number;
  summaryCount: number;
  viewVersion: number;
}

export interface SearchHit<Key> {
  key: Key;
  /** Higher is better; comparable only within one result list. */
  score: number;
}

/** The store of one agent. See the file comment for the contract. */
export interface LosslessStore {
  /** Names the implementation in logs and reports (`sqlite`). */
  readonly kind: string;
  /** Stores the messages not stored yet, in input order, and appends them to the view. */
  appendMessages(sessionId: string, messages: readonly NewStoredMessage[]): Promise<AppendMessagesResult>;
  /** Stores the summaries and applies the edits in one transaction. Returns the new view version. */
  applyCompaction(sessionId: string, write: CompactionWrite): Promise<{ viewVersion: number }>;
  readContextView(sessionId: string): Promise<ContextView>;
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
   * matches when any term does. Best first (BM25), at most `limit`.
   */
  searchMessages(sessionId: string, terms: readonly string[], limit: number): Promise<SearchHit<number>[]>;
  /** Like `searchMessages`, over summary text (`content`) or summary anchors (`anchors`). */
  searchSummaries(
    sessionId: string,
    terms: readonly string[],
    field: "content" | "anchors",
    limit: number,
  ): Promise<SearchHit<string>[]>;
  /** Bytes the store takes on disk, all files included. */
  sizeOnDisk(): Promise<number>;
  close(): Promise<void>;
}
