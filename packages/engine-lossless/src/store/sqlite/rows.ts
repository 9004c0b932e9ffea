/**
 * Row shapes of the SQLite store and their conversion to the seam's types. Kept apart from the
 * statements so the store file reads as the list of operations.
 */
import type {
  StoredContextItem,
  StoredMessage,
  StoredSummary,
  SummaryAnchor,
  SummaryKind,
} from "../store.js";

export interface MessageRow {
  seq: number;
  identity: Buffer;
  role: string;
  created_at: number;
  tokens: number;
  json: string;
}

export interface SummaryRow {
  summary_id: string;
  kind: SummaryKind;
  depth: number;
  content: string;
  tokens: number;
  source_ranges: string;
  source_count: number;
  source_tokens: number;
  child_ids: string;
  anchors: string;
  earliest_at: number;
  latest_at: number;
  summarizer: string;
  parent_id: string | null;
  created_at: number;
  cost_usd: number | null;
}

export interface ContextItemRow {
  position: number;
  tokens: number;
  item_json: string | null;
  seq: number | null;
  message_json: string | null;
  created_at: number | null;
  summary_id: string | null;
  kind: SummaryKind | null;
  depth: number | null;
  content: string | null;
  anchors: string | null;
  source_ranges: string | null;
  source_count: number | null;
  source_tokens: number | null;
  earliest_at: number | null;
  latest_at: number | null;
  summarizer: string | null;
}

/**
 * The key messages are found by before their identity (see `rebuildMessagesWithIdentityKey` in
 * `schema.ts`): the message's own timestamp when it is a safe integer (timestamps grow as a
 * session goes on, so new messages land on the index's last page), else `untimedIdentityKey`.
 * The same message always gets the same key: both come from its JSON.
 */
export function identityKey(identity: Buffer, timestamp: number | undefined): number {
  return timestamp !== undefined && Number.isSafeInteger(timestamp)
    ? timestamp + 0
    : untimedIdentityKey(identity);
}

/** For a message without an integer timestamp: from the identity's first 6 bytes, below -0. */
export function untimedIdentityKey(identity: Buffer): number {
  return -1 - identity.readUIntBE(0, 6);
}

export function toStoredMessage(row: MessageRow): StoredMessage {
  return {
    seq: row.seq,
    identity: row.identity.toString("hex"),
    role: row.role,
    createdAt: row.created_at,
    tokens: row.tokens,
    json: row.json,
  };
}

export function toStoredSummary(row: SummaryRow): StoredSummary {
  return {
    summaryId: row.summary_id,
    kind: row.kind,
    depth: row.depth,
    content: row.content,
    tokens: row.tokens,
    sourceRanges: JSON.parse(row.source_ranges) as Array<[number, number]>,
    sourceCount: row.source_count,
    sourceTokens: row.source_tokens,
    childIds: JSON.parse(row.child_ids) as string[],
    anchors: decodeAnchors(row.anchors),
    earliestAt: row.earliest_at,
    latestAt: row.latest_at,
    summarizer: row.summarizer,
    ...(typeof row.cost_usd === "number" ? { costUsd: row.cost_usd } : {}),
    parentId: row.parent_id ?? undefined,
    createdAt: row.created_at,
  };
}

export function toStoredContextItem(row: ContextItemRow): StoredContextItem {
  if (row.summary_id === null) {
    return {
      position: row.position,
      ref: { kind: "message", seq: row.seq ?? 0 },
      tokens: row.tokens,
      createdAt: row.created_at ?? 0,
      json: row.message_json ?? "null",
    };
  }
  return {
    position: row.position,
    ref: { kind: "summary", summaryId: row.summary_id },
    tokens: row.tokens,
    createdAt: row.latest_at ?? 0,
    json: row.item_json ?? "null",
    summary: {
      kind: row.kind ?? "leaf",
      depth: row.depth ?? 0,
      content: row.content ?? "",
      anchors: decodeAnchors(row.anchors ?? "[]"),
      sourceRanges: JSON.parse(row.source_ranges ?? "[]") as Array<[number, number]>,
      sourceCount: row.source_count ?? 0,
      sourceTokens: row.source_tokens ?? 0,
      earliestAt: row.earliest_at ?? 0,
      latestAt: row.latest_at ?? 0,
      summarizer: row.summarizer ?? "",
    },
  };
}

/**
 * Anchors are stored as `[value, [seq, ...]]` pairs: a long session's nodes hold thousands of
 * anchors, and the object form's repeated keys would take a third of their bytes.
 */
export function encodeAnchors(anchors: readonly SummaryAnchor[]): string {
  return JSON.stringify(anchors.map((anchor) => [anchor.value, anchor.messages]));
}

function decodeAnchors(json: string): SummaryAnchor[] {
  return (JSON.parse(json) as Array<[string, number[]]>).map(([value, messages]) => ({ value, messages }));
}
