/**
 * What a chunk is, shared by compaction and by summary preparation so that a summary prepared in
 * the background is the summary compaction would make for the same items: the smallest chunk
 * worth a leaf, the leaf's and the condensed node's caps, the chunk's key (also of a condensed
 * run; its `leaf_` prefix is only a name kept for stored jobs), and the node a prepared summary
 * stands for.
 */
import { createHash } from "node:crypto";
import type { AgentMessage } from "@clew/core";
import type { NewSummary, PreparedSummary } from "../store/store.js";
import type { ViewItem } from "../view/session-view.js";
import type { BuiltNode } from "./build-node.js";

/** Leaf chunks smaller than this are left for condensing: a summary would barely be smaller. */
export const MIN_LEAF_CHUNK_TOKENS = 400;
/** A leaf summary's cap as a share of its chunk. */
const LEAF_RATIO = 0.35;

/** A condensed node's cap as a share of its run. */
const CONDENSE_RATIO = 0.6;

/** The most tokens a leaf summary over `chunkTokens` may take. */
export function leafCap(leafTargetTokens: number, chunkTokens: number): number {
  return Math.min(leafTargetTokens, Math.floor(chunkTokens * LEAF_RATIO));
}

/** The most tokens a condensed node over a run of `runTokens` may take. */
export function condensedCap(condensedTargetTokens: number, runTokens: number): number {
  return Math.min(condensedTargetTokens, Math.floor(runTokens * CONDENSE_RATIO));
}

/**
 * The chunk's key: a digest of its items' positions and refs. Messages never change and a
 * position is never reused for other messages, so equal keys mean the same messages in the same
 * places of the view.
 */
export function chunkKeyOf(items: readonly ViewItem[]): string {
  const refs = items.map((item) => [
    item.position,
    item.ref.kind === "message" ? item.ref.seq : item.ref.summaryId,
  ]);
  return `leaf_${createHash("sha256").update(JSON.stringify(refs)).digest("hex").slice(0, 32)}`;
}

/** Where a job's items sat in the view: its first and last positions and its chunk key. */
export interface ViewSpan {
  chunkKey: string;
  firstPosition: number;
  lastPosition: number;
}

/**
 * Whether the view still holds the span's items where they were (a condensed run stays until it
 * is condensed, a leaf until it is replaced).
 */
export function spanInView(items: readonly ViewItem[], span: ViewSpan): boolean {
  const start = items.findIndex((item) => item.position === span.firstPosition);
  if (start < 0) return false;
  const end = items.findIndex((item, index) => index >= start && item.position === span.lastPosition);
  return end >= start && chunkKeyOf(items.slice(start, end + 1)) === span.chunkKey;
}

/**
 * The node a prepared summary stands for, when its edit replaces exactly `items` (the same
 * positions holding the same refs); undefined otherwise, so a summary made for other items is
 * never published in their place.
 */
export function preparedNode(prepared: PreparedSummary, items: readonly ViewItem[]): BuiltNode | undefined {
  const { summary, edit } = prepared;
  const first = items[0];
  if (first === undefined || edit.summaryId !== summary.summaryId || !sameItems(edit.replace, items))
    return undefined;
  const message = JSON.parse(edit.json) as AgentMessage;
  return { summary, edit, item: summaryItemOf(first.position, summary, message, edit.tokens) };
}

/** The view item showing `summary` as `message` (`tokens` in context) at `position`. */
export function summaryItemOf(
  position: number,
  summary: NewSummary,
  message: AgentMessage,
  tokens: number,
): ViewItem {
  return {
    position,
    ref: { kind: "summary", summaryId: summary.summaryId },
    tokens,
    message,
    createdAt: summary.latestAt,
    startsGroup: true,
    orphan: false,
    summary: summaryFactsOf(summary),
  };
}

/** What a view item carries of the summary it shows. */
function summaryFactsOf(summary: NewSummary): NonNullable<ViewItem["summary"]> {
  return {
    kind: summary.kind,
    depth: summary.depth,
    content: summary.content,
    anchors: summary.anchors,
    sourceRanges: summary.sourceRanges,
    sourceCount: summary.sourceCount,
    sourceTokens: summary.sourceTokens,
    earliestAt: summary.earliestAt,
    latestAt: summary.latestAt,
    summarizer: summary.summarizer,
  };
}

function sameItems(replace: PreparedSummary["edit"]["replace"], items: readonly ViewItem[]): boolean {
  if (replace.length !== items.length) return false;
  return replace.every(({ position, ref }, index) => {
    const item = items[index] as ViewItem;
    if (item.position !== position || item.ref.kind !== ref.kind) return false;
    return ref.kind === "message"
      ? item.ref.kind === "message" && item.ref.seq === ref.seq
      : item.ref.kind === "summary" && item.ref.summaryId === ref.summaryId;
  });
}
