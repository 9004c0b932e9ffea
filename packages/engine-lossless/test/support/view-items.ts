/** View items built by hand, for the rules that read a view's shape (preparation, compaction). */
import type { ViewItem } from "../../src/view/session-view.js";
import { userText } from "./conversations.js";

/** A raw user message of 200 tokens at `position` (its seq and timestamp too). */
export function raw(position: number): ViewItem {
  return {
    position,
    ref: { kind: "message", seq: position },
    tokens: 200,
    message: userText(`message ${position}`, position),
    createdAt: position,
    startsGroup: true,
    orphan: false,
  };
}

/** A summary of 200 tokens at `position`: a leaf at depth 0, a condensed node deeper. */
export function summary(position: number, depth = 0): ViewItem {
  return {
    ...raw(position),
    ref: { kind: "summary", summaryId: `sum_${String(position).padStart(16, "0")}` },
    summary: {
      kind: depth === 0 ? "leaf" : "condensed",
      depth,
      content: `summary ${position}`,
      anchors: [],
      sourceRanges: [[position, position]],
      sourceCount: 1,
      sourceTokens: 400,
      earliestAt: position,
      latestAt: position,
      // Written in a model's place (see `writerId`): an upgrade candidate.
      summarizer: "extractive in place of model:test/stub",
    },
  };
}

export const positionsOf = (items: readonly ViewItem[] | undefined) => items?.map((item) => item.position);
