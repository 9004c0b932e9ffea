/**
 * Makes one summary node over a run of view items: its text (summarizer with fallbacks), its
 * anchors (by code), its envelope, the stored row, the view edit and the item that replaces the
 * run. A run with no summary in it becomes a leaf over its messages; otherwise a condensed node
 * whose children are the run's summaries (raw stragglers in the run are covered directly).
 */
import { createHash } from "node:crypto";
import {
  type AgentMessage,
  createExtractiveSummarizer,
  type Logger,
  type Summarizer,
  type TokenCounter,
} from "@clew/core";
import type { ContextEdit, NewSummary, SummaryAnchor } from "../store/store.js";
import type { ViewItem } from "../view/session-view.js";
import { anchorsOfLeaf, anchorsOfMessages, mergeAnchors } from "./anchors.js";
import { mergeRanges } from "./plan.js";
import { envelopeTokens, fitSummary, type SummaryEnvelope, smallestSummaryTokens } from "./render-summary.js";
import { writerId } from "./stand-in.js";
import { writeSummaryText } from "./write-summary-text.js";

export interface NodeSettings {
  counter: TokenCounter;
  summarizer: Summarizer;
  /** The configured model `summarizer` stands in for (see `SummarizerGrant.standInFor`). */
  standInFor?: string;
  summarizerTimeoutMs: number;
  logger: Logger;
  now: () => number;
}

export interface NodeRequest {
  sessionId: string;
  items: readonly ViewItem[];
  /** The node's rendered size may not exceed this. */
  maxTokens: number;
  customInstructions?: string;
  signal?: AbortSignal;
  /**
   * The view item the node is written to replace instead of `items` (an upgrade: `items` are the
   * stored sources of that summary). Its id is then part of the node's, which would otherwise
   * equal the replaced summary's.
   */
  replaces?: ViewItem;
}

export interface BuiltNode {
  summary: NewSummary;
  edit: ContextEdit;
  item: ViewItem;
}

/**
 * The node, or undefined when `maxTokens` cannot hold the smallest summary (its envelope and the
 * cut marker): then no summarizer is called.
 */
export async function buildNode(
  settings: NodeSettings,
  request: NodeRequest,
): Promise<BuiltNode | undefined> {
  const children = request.items.filter((item) => item.summary !== undefined);
  const stragglers = rawSources(request.items);
  const sourceRanges = mergeRanges(
    children.flatMap((child) => child.summary?.sourceRanges ?? []),
    stragglers.map((source) => source.seq),
  );
  const kind = children.length === 0 ? "leaf" : "condensed";
  const envelope: SummaryEnvelope = {
    summaryId: summaryIdOf(request.sessionId, kind, sourceRanges, children, request.replaces),
    kind,
    depth: children.reduce((deepest, child) => Math.max(deepest, (child.summary?.depth ?? 0) + 1), 0),
    sourceRanges,
    sourceCount: sourceRanges.reduce((sum, [first, last]) => sum + last - first + 1, 0),
    earliestAt: request.items.reduce(
      (earliest, item) => Math.min(earliest, item.summary?.earliestAt ?? item.createdAt),
      Number.POSITIVE_INFINITY,
    ),
    latestAt: request.items.reduce((latest, item) => Math.max(latest, item.createdAt), 0),
  };
  if (smallestSummaryTokens(envelope, settings.counter) > request.maxTokens) return undefined;
  const overhead = envelopeTokens(envelope, settings.counter);
  const anchors =
    children.length === 0
      ? anchorsOfLeaf(stragglers)
      : mergeAnchors([
          ...children.map((child) => child.summary?.anchors ?? []),
          anchorsOfMessages(stragglers),
        ]);
  const childBodies = kind === "leaf" ? undefined : await bodiesOf(request.items, stragglers);
  const text = await writeSummaryText({
    summarizer: settings.summarizer,
    messages: request.items.map((item) => item.message),
    ...(childBodies === undefined ? {} : { childBodies }),
    anchors: anchors.map((anchor) => anchor.value),
    maxTokens: request.maxTokens - overhead,
    timeoutMs: settings.summarizerTimeoutMs,
    logger: settings.logger,
    ...(request.customInstructions === undefined ? {} : { customInstructions: request.customInstructions }),
    ...(request.signal === undefined ? {} : { signal: request.signal }),
  });
  // Never undefined here: the room holds the cut marker (checked above).
  const fitted = fitSummary(envelope, text.text, request.maxTokens, settings.counter);
  if (fitted === undefined) return undefined;
  const summary = newSummary(
    envelope,
    fitted.body,
    fitted.tokens,
    anchors,
    children,
    request.items,
    settings,
  );
  summary.summarizer = writerId(text.summarizerId, settings.standInFor ?? settings.summarizer.id);
  if (text.costUsd !== undefined) summary.costUsd = text.costUsd;
  const replaced = request.replaces === undefined ? request.items : [request.replaces];
  const first = replaced[0] as ViewItem;
  return {
    summary,
    edit: {
      replace: replaced.map((item) => ({ position: item.position, ref: item.ref })),
      summaryId: envelope.summaryId,
      tokens: fitted.tokens,
      json: JSON.stringify(fitted.message),
    },
    item: {
      position: first.position,
      ref: { kind: "summary", summaryId: envelope.summaryId },
      tokens: fitted.tokens,
      message: fitted.message,
      createdAt: envelope.latestAt,
      startsGroup: true,
      orphan: false,
      summary: {
        kind,
        depth: envelope.depth,
        content: fitted.body,
        anchors,
        sourceRanges,
        sourceCount: envelope.sourceCount,
        sourceTokens: summary.sourceTokens,
        earliestAt: envelope.earliestAt,
        latestAt: envelope.latestAt,
        summarizer: summary.summarizer,
      },
    },
  };
}

function rawSources(items: readonly ViewItem[]): Array<{ seq: number; message: AgentMessage }> {
  return items.flatMap((item) =>
    item.ref.kind === "message" ? [{ seq: item.ref.seq, message: item.message }] : [],
  );
}

/** Children's summary texts, with the raw stragglers summarized by rule in their place. */
async function bodiesOf(
  items: readonly ViewItem[],
  stragglers: ReadonlyArray<{ message: AgentMessage }>,
): Promise<string[]> {
  const bodies = items.flatMap((item) => (item.summary === undefined ? [] : [item.summary.content]));
  if (stragglers.length === 0) return bodies;
  const extra = await createExtractiveSummarizer().summarize({
    messages: stragglers.map((straggler) => straggler.message),
    maxTokens: 400,
  });
  return [...bodies, extra];
}

function newSummary(
  envelope: SummaryEnvelope,
  body: string,
  tokens: number,
  anchors: SummaryAnchor[],
  children: readonly ViewItem[],
  items: readonly ViewItem[],
  settings: NodeSettings,
): NewSummary {
  const sourceTokens = items.reduce((sum, item) => sum + (item.summary?.sourceTokens ?? item.tokens), 0);
  return {
    summaryId: envelope.summaryId,
    kind: envelope.kind,
    depth: envelope.depth,
    content: body,
    tokens,
    sourceRanges: envelope.sourceRanges.map(([first, last]): [number, number] => [first, last]),
    sourceCount: envelope.sourceCount,
    sourceTokens,
    childIds: children.flatMap((child) => (child.ref.kind === "summary" ? [child.ref.summaryId] : [])),
    anchors,
    earliestAt: envelope.earliestAt,
    latestAt: envelope.latestAt,
    summarizer: settings.summarizer.id,
    createdAt: settings.now(),
  };
}

/** Deterministic: the same node over the same sources and children gets the same id. */
function summaryIdOf(
  sessionId: string,
  kind: string,
  ranges: ReadonlyArray<readonly [number, number]>,
  children: readonly ViewItem[],
  replaces: ViewItem | undefined,
): string {
  const childIds = children.map((child) => (child.ref.kind === "summary" ? child.ref.summaryId : ""));
  const key: unknown[] = [sessionId, kind, ranges, childIds];
  if (replaces?.ref.kind === "summary") key.push(replaces.ref.summaryId);
  const digest = createHash("sha256").update(JSON.stringify(key)).digest("hex");
  return `sum_${digest.slice(0, 16)}`;
}
