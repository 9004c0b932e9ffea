/**
 * What an upgrade writes a summary again from, read back from the store as the view items the
 * summary was made of: a leaf's source messages; a condensed node's children (rendered as the view
 * showed them) and the raw messages it covered directly, in the order they had in the view.
 * Throws when the store no longer holds them all (it never deletes a summary's sources on its own).
 */
import type { AgentMessage } from "@clew/core";
import { summaryItemOf } from "../compaction/leaf-chunk.js";
import { renderSummaryMessage } from "../compaction/render-summary.js";
import type { LosslessStore, StoredMessage } from "../store/store.js";
import type { ViewItem } from "../view/session-view.js";

/** The store's reads an upgrade's sources take. */
export type SourceReader = Pick<LosslessStore, "readMessages" | "readSummaries">;

export async function upgradeSources(
  store: SourceReader,
  sessionId: string,
  item: ViewItem,
): Promise<ViewItem[]> {
  const facts = item.summary;
  if (facts === undefined || item.ref.kind !== "summary") throw new Error("only a summary is upgraded");
  const summaryId = item.ref.summaryId;
  if (facts.kind === "leaf")
    return messageItems(store, sessionId, item, summaryId, seqsOf(facts.sourceRanges));
  const [node] = await store.readSummaries(sessionId, [summaryId]);
  if (node === undefined) throw new Error(`summary ${summaryId} is not stored`);
  const children = await store.readSummaries(sessionId, node.childIds);
  if (children.length !== node.childIds.length)
    throw new Error(
      `summary ${summaryId} condenses ${node.childIds.length} summaries; ${children.length} are stored`,
    );
  const covered = new Set(children.flatMap((child) => seqsOf(child.sourceRanges)));
  const stragglers = seqsOf(node.sourceRanges).filter((seq) => !covered.has(seq));
  const raw = await messageItems(store, sessionId, item, summaryId, stragglers);
  const summaries = children.map((child) =>
    summaryItemOf(item.position, child, renderSummaryMessage(child, child.content), child.tokens),
  );
  return [...summaries, ...raw].sort((left, right) => firstSeq(left) - firstSeq(right));
}

function seqsOf(ranges: ReadonlyArray<readonly [number, number]>): number[] {
  return ranges.flatMap(([first, last]) =>
    Array.from({ length: last - first + 1 }, (_, offset) => first + offset),
  );
}

async function messageItems(
  store: SourceReader,
  sessionId: string,
  item: ViewItem,
  summaryId: string,
  seqs: readonly number[],
): Promise<ViewItem[]> {
  if (seqs.length === 0) return [];
  const messages = await store.readMessages(sessionId, seqs);
  if (messages.length !== seqs.length)
    throw new Error(`summary ${summaryId} covers ${seqs.length} messages; ${messages.length} are stored`);
  return messages.map((message) => messageItem(item.position, message));
}

function messageItem(position: number, message: StoredMessage): ViewItem {
  return {
    position,
    ref: { kind: "message", seq: message.seq },
    tokens: message.tokens,
    message: JSON.parse(message.json) as AgentMessage,
    createdAt: message.createdAt,
    startsGroup: true,
    orphan: false,
  };
}

function firstSeq(item: ViewItem): number {
  if (item.ref.kind === "message") return item.ref.seq;
  return item.summary?.sourceRanges[0]?.[0] ?? 0;
}
