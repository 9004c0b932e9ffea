/**
 * What a summary is: its coverage, children, parent, anchors and text; or, for a message id, the
 * message's facts and the leaf summaries that cover it. Reads only metadata, never source text.
 */

import { rangesLabel } from "../compaction/render-summary.js";
import type { LosslessStore } from "../store/store.js";
import { isoTime, messageLabel, parseMessageLabel } from "./message-text.js";

/** Anchors listed in full; the rest are counted. */
const LISTED_ANCHORS = 100;

export interface SummaryDescription {
  kind: "summary";
  id: string;
  summaryKind: "leaf" | "condensed";
  depth: number;
  covers: string;
  messageCount: number;
  sourceTokens: number;
  tokens: number;
  from: string;
  to: string;
  summarizer: string;
  children: string[];
  parent: string | undefined;
  anchors: Array<{ value: string; messages: string[] }>;
  anchorCount: number;
  content: string;
}

export interface MessageDescription {
  kind: "message";
  id: string;
  role: string;
  createdAt: string;
  tokens: number;
  summarizedBy: string[];
}

/** @throws Error when `id` names nothing in this conversation. */
export async function recallDescribe(
  store: LosslessStore,
  sessionId: string,
  id: string,
): Promise<SummaryDescription | MessageDescription> {
  if (id.startsWith("sum_")) {
    const [summary] = await store.readSummaries(sessionId, [id]);
    if (summary === undefined) throw new Error(`No summary "${id}" in this conversation`);
    return {
      kind: "summary",
      id,
      summaryKind: summary.kind,
      depth: summary.depth,
      covers: rangesLabel(summary.sourceRanges),
      messageCount: summary.sourceCount,
      sourceTokens: summary.sourceTokens,
      tokens: summary.tokens,
      from: isoTime(summary.earliestAt),
      to: isoTime(summary.latestAt),
      summarizer: summary.summarizer,
      children: summary.childIds,
      parent: summary.parentId,
      anchors: summary.anchors
        .slice(0, LISTED_ANCHORS)
        .map((anchor) => ({ value: anchor.value, messages: anchor.messages.map(messageLabel) })),
      anchorCount: summary.anchors.length,
      content: summary.content,
    };
  }
  const seq = parseMessageLabel(id);
  const [message] = seq === undefined ? [] : await store.readMessages(sessionId, [seq]);
  if (seq === undefined || message === undefined) {
    throw new Error(`No message or summary "${id}" in this conversation (ids look like m12 or sum_…)`);
  }
  const leaves = await store.findLeafSummaries(sessionId, seq);
  return {
    kind: "message",
    id: messageLabel(seq),
    role: message.role,
    createdAt: isoTime(message.createdAt),
    tokens: message.tokens,
    summarizedBy: leaves.map((leaf) => leaf.summaryId),
  };
}
