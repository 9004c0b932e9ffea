/**
 * Where a recall tool call reads: the session's own history, or another history it may read (a
 * forked subagent's parent, an earlier session of the same conversation). Message ids count per
 * session, so another history's ids are written with a prefix (`parent:m12`, `prev1:m12`), and an
 * answer read from it opens with where it comes from.
 */
import type { MessageDescription, SummaryDescription } from "../recall/recall-describe.js";
import type { RecallPage } from "../recall/recall-read.js";
import type { LosslessStore } from "../store/store.js";

export interface RecallTarget {
  store: LosslessStore;
  sessionId: string;
  /** Absent for the session's own history. */
  other?: OtherHistory;
}

export interface OtherHistory {
  /** What tool details call it. */
  session: "parent" | "earlier";
  /** Written in front of its ids: `parent:`, `prev1:`. */
  prefix: string;
  /** The line an answer read from it opens with. */
  heading: string;
  /** What a search hit from it says of where it comes from. */
  label: string;
}

/** Which history a tool's answer comes from, in its details. */
export type RecallSession = "current" | OtherHistory["session"];

export function sessionOf(target: RecallTarget): RecallSession {
  return target.other?.session ?? "current";
}

/** `heading` and a blank line, or nothing for the session's own history. */
export function headingOf(target: RecallTarget, separator = "\n\n"): string {
  return target.other === undefined ? "" : `${target.other.heading}${separator}`;
}

/** The page with the target's ids, in its messages and in each message's header. */
export function pageWithIds(page: RecallPage, target: RecallTarget): RecallPage {
  const prefix = target.other?.prefix;
  if (prefix === undefined) return page;
  return {
    ...page,
    messages: page.messages.map((message) => ({
      ...message,
      id: `${prefix}${message.id}`,
      // Headers read `[m12 · role · time]` (see readingHeader).
      text: message.text.startsWith(`[${message.id} `) ? `[${prefix}${message.text.slice(1)}` : message.text,
    })),
  };
}

/** Every id in a description, written with the target's prefix. */
export function descriptionWithIds(
  description: SummaryDescription | MessageDescription,
  target: RecallTarget,
): SummaryDescription | MessageDescription {
  const prefix = target.other?.prefix;
  if (prefix === undefined) return description;
  const id = (value: string) => `${prefix}${value}`;
  if (description.kind === "message") {
    return { ...description, id: id(description.id), summarizedBy: description.summarizedBy.map(id) };
  }
  return {
    ...description,
    id: id(description.id),
    covers: description.covers.replace(/\bm(\d+)/g, `${prefix}m$1`),
    children: description.children.map(id),
    parent: description.parent === undefined ? undefined : id(description.parent),
    anchors: description.anchors.map((anchor) => ({ ...anchor, messages: anchor.messages.map(id) })),
  };
}
