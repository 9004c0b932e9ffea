/**
 * The conversation as the store keeps it: messages, summaries, the context view and its edits,
 * and the shapes of reads and searches over them. Part of the store seam (`store.ts` re-exports
 * these types, and holds the contract); plain data, so any store can keep them.
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
  /**
   * The JSON's own top-level `timestamp` when it is a number (every copy of a message has the
   * same). A store may find stored identities by it, so it must not be given otherwise; when it
   * is absent the store reads it from `json` if it needs it.
   */
  timestamp?: number;
}

/**
 * How far bootstrap has imported a session's transcript, so that a restart reads only what was
 * appended since. The store keeps it as written; the engine decides whether it still holds (see
 * `src/ingest/transcript-watermark.ts`).
 */
export interface TranscriptWatermark {
  /** The transcript's path as bootstrap was given it. */
  file: string;
  /** The file's identity (device and inode): a rewrite renames a new file over the old one. */
  fileId: string;
  /** Bytes imported: the end of the last whole line read. */
  offset: number;
  /** sha256 (hex) of the file's first line and of the last line before `offset`. */
  headHash: string;
  tailHash: string;
  /** Where the last line before `offset` starts. */
  tailStart: number;
  /** The newest entry read (the active branch's leaf then); null when there was none. */
  leafId: string | null;
}

export interface StoredMessage {
  seq: number;
  identity: string;
  role: string;
  createdAt: number;
  tokens: number;
  json: string;
}

/** A stored message without its JSON: what choosing among many messages needs. */
export type StoredMessageHead = Omit<StoredMessage, "identity" | "json">;

export interface AppendMessagesResult {
  /** The messages that were new, in input order: their input index, seq and view position. */
  inserted: Array<{ index: number; seq: number; position: number }>;
  /** The session's view version after the write (unchanged when nothing was new). */
  viewVersion: number;
  /**
   * True when `onlyToStoredSession` was asked and the session had no stored message (never
   * written, or deleted since): then nothing was written. Required, so that a store written
   * before the option existed does not compile instead of storing a turn without its history.
   */
  sessionNotStored: boolean;
}

export interface AppendMessagesOptions {
  /**
   * Write only if the session has stored messages already; otherwise write nothing and answer
   * `sessionNotStored`. The check is part of the write, so no other writer (another process
   * deleting the session) comes between them. A caller that appends only the newest messages of
   * a snapshot learns this way that it must append the whole snapshot, without a read of its own.
   */
  onlyToStoredSession?: boolean;
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
  /** Dollars the summarizer reported for writing it; absent when it reported none. */
  costUsd?: number;
  createdAt: number;
}

export interface StoredSummary extends NewSummary {
  /**
   * The condensed node that covers this one, once there is one; when that node is rewritten in
   * place (an upgrade, with the same children), the rewrite.
   */
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
    /** Which summarizer wrote `content` (see `NewSummary.summarizer`). */
    summarizer: string;
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
  /** Summary jobs this write publishes (their chunk keys): deleted in the same transaction. */
  settledJobs?: string[];
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

export interface MessageSearchOptions {
  /**
   * Rank only about this many matches, for a search that runs on every request and must not slow
   * down as the session grows. When the terms match more messages than this, each term adds its
   * newest matches while the rarest terms add all of theirs first, so a rare term's oldest match is
   * still found; a store may score a term of several words by its rarity (IDF) alone, as BM25
   * scores one occurrence in a message of average length. Without it every match is ranked.
   * It also bounds which terms count as common: one matching this many messages or more is left out
   * while rarer terms remain, since it could not be ranked in full (below 200 matches none is).
   */
  maxRanked?: number;
  /**
   * Messages the caller has no use for (those already in its context): never returned, and a
   * bounded ranking passes over them instead of spending its share on them.
   */
  skip?: (seq: number) => boolean;
  /**
   * For a search that must answer at once (assembly's): when more than this many stored messages
   * wait to be indexed in the whole store (a bulk import moments ago, in any session), answer
   * from what is indexed and leave them to the store's background indexing instead of indexing
   * them first; the newest messages may then be missed too. At most this many waiting (a turn's
   * own messages) are indexed first as usual. Without it a search finds every stored message,
   * however many must be indexed first.
   */
  indexAtMost?: number;
}

/** A session the same conversation had before the current one (see `LosslessStore.earlierSessions`). */
export interface EarlierSessionInfo {
  sessionId: string;
  /** `createdAt` of its oldest message. */
  firstMessageAt: number;
  /** `createdAt` of its newest message. */
  lastMessageAt: number;
}
