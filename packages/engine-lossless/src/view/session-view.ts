/**
 * A session's context view in memory: the stored items parsed once, with what assembly and
 * compaction need precomputed per item, so a turn's work is what changed since the last one.
 *
 * Tool groups: an item that is not a tool result starts a group; the tool results after it belong
 * to it. A tool result whose call is not in its group (its call was summarized, or never came)
 * is an orphan: it stays stored but is never assembled, so no context holds a result without its
 * call. Cuts (eviction in assembly, chunk edges in compaction) fall only on group starts.
 */
import type { AgentMessage } from "@clew/core";
import type { ContextItemRef, StoredContextItem } from "../store/store.js";
import { OpenCalls, syntheticResultTokens } from "./unanswered-calls.js";

/** What a summary item carries besides its rendered message: the stored item's facts. */
export type SummaryFacts = NonNullable<StoredContextItem["summary"]>;

export interface ViewItem {
  position: number;
  ref: ContextItemRef;
  /** Tokens by the engine's counter, counted once when the item was made. */
  tokens: number;
  message: AgentMessage;
  createdAt: number;
  startsGroup: boolean;
  orphan: boolean;
  summary?: SummaryFacts;
}

/** How many of the newest stored messages are remembered for finding the host's unstored tail. */
const RECENT_KEYS = 16;

/** Items and tokens of a range of assembled items (see `SessionView.rangeTally`). */
export interface RangeTally {
  /** Items that are not summaries: raw messages and synthetic results. */
  raw: number;
  summaries: number;
  rawTokens: number;
  summaryTokens: number;
}

export class SessionView {
  readonly items: ViewItem[] = [];
  /** The messages assembly returns when everything fits: every item but orphans, in order. */
  readonly assembled: AgentMessage[] = [];
  readonly assembledItems: ViewItem[] = [];
  assembledTokens = 0;
  /** Seqs of the raw messages in `assembledItems`. */
  private readonly rawSeqs = new Set<number>();
  /** `rawBefore[i]`: raw messages among `assembledItems[0..i)`, so a prefix is counted in O(1). */
  private readonly rawBefore: number[] = [0];
  /** `summariesBefore[i]`: summaries among `assembledItems[0..i)` (synthetic tool results are neither). */
  private readonly summariesBefore: number[] = [0];
  /** Tokens of `assembledItems[0..i)`, all of them and the summaries', for tallies of any range. */
  private readonly tokensBefore: number[] = [0];
  private readonly summaryTokensBefore: number[] = [0];
  /** `messageKey` of the newest stored messages, newest last. */
  private readonly recent: string[] = [];
  /** The open group's calls that need a result in the context (see `unanswered-calls.ts`). */
  private readonly openCalls = new OpenCalls();

  constructor(public version: number) {}

  /** Builds the view from stored items. Throws when an item's JSON does not parse. */
  static fromStored(version: number, stored: readonly StoredContextItem[]): SessionView {
    const view = new SessionView(version);
    for (const item of stored) {
      view.push({
        position: item.position,
        ref: item.ref,
        tokens: item.tokens,
        message: JSON.parse(item.json) as AgentMessage,
        createdAt: item.createdAt,
        ...(item.summary === undefined ? {} : { summary: item.summary }),
      });
    }
    return view;
  }

  /** Rebuilds a view from items (after compaction), recomputing groups and orphans. */
  static fromItems(version: number, items: readonly ViewItem[]): SessionView {
    const view = new SessionView(version);
    for (const item of items) view.push(item);
    return view;
  }

  /** Appends an item at the end; group and orphan flags are worked out here. */
  push(item: Omit<ViewItem, "startsGroup" | "orphan">): void {
    const toolCallId = toolResultCallId(item.message);
    const startsGroup = toolCallId === undefined;
    const orphan = !startsGroup && !this.openCalls.answer(toolCallId);
    if (startsGroup) this.closeGroup(item, this.openCalls.start(item.message));
    // Built field by field: an object spread of items made in many places costs most of a push.
    const full: ViewItem = {
      position: item.position,
      ref: item.ref,
      tokens: item.tokens,
      message: item.message,
      createdAt: item.createdAt,
      startsGroup,
      orphan,
    };
    if (item.summary !== undefined) full.summary = item.summary;
    this.items.push(full);
    if (!orphan) this.pushAssembled(full, full.ref.kind === "message" ? "raw" : "summary");
    if (full.ref.kind === "message") {
      this.recent.push(messageKey(full.message));
      if (this.recent.length > RECENT_KEYS) this.recent.shift();
    }
  }

  /**
   * `messages` (the host's, after the view's newest) as the view will assemble them once they are
   * stored, so a turn sends what the next turn sends for the same messages: a result whose call is
   * not in its group, or already answered, is left out; calls a group leaves unanswered get synthetic
   * results where it ends. Leading results continue the view's newest group. The view is unchanged.
   */
  assembledAfter(messages: readonly AgentMessage[]): AgentMessage[] {
    const group = this.openCalls.copy();
    const assembled: AgentMessage[] = [];
    for (const message of messages) {
      const toolCallId = toolResultCallId(message);
      if (toolCallId === undefined) assembled.push(...group.start(message), message);
      else if (group.answer(toolCallId)) assembled.push(message);
    }
    assembled.push(...group.unanswered());
    return assembled;
  }

  /** A group ends at `next`: its calls that got no result (`unanswered`) are answered in the context. */
  private closeGroup(next: Omit<ViewItem, "startsGroup" | "orphan">, unanswered: AgentMessage[]): void {
    for (const message of unanswered) {
      // Part of the group it closes (never a cut point), labelled like the call's message.
      const previous = this.assembledItems.at(-1);
      const ref = previous?.ref ?? next.ref;
      const synthetic: ViewItem = {
        position: previous?.position ?? next.position,
        ref,
        tokens: syntheticResultTokens(message),
        message,
        createdAt: previous?.createdAt ?? next.createdAt,
        startsGroup: false,
        orphan: false,
      };
      this.pushAssembled(synthetic, "synthetic");
    }
  }

  private pushAssembled(item: ViewItem, kind: "raw" | "summary" | "synthetic"): void {
    this.assembled.push(item.message);
    this.assembledItems.push(item);
    this.assembledTokens += item.tokens;
    const raw = kind === "raw" && item.ref.kind === "message";
    if (raw && item.ref.kind === "message") this.rawSeqs.add(item.ref.seq);
    this.rawBefore.push((this.rawBefore.at(-1) ?? 0) + (raw ? 1 : 0));
    this.summariesBefore.push((this.summariesBefore.at(-1) ?? 0) + (kind === "summary" ? 1 : 0));
    this.tokensBefore.push((this.tokensBefore.at(-1) ?? 0) + item.tokens);
    this.summaryTokensBefore.push(
      (this.summaryTokensBefore.at(-1) ?? 0) + (kind === "summary" ? item.tokens : 0),
    );
  }

  /**
   * Items and tokens of `assembledItems[from, to)` (bounds clamped): summaries, and the rest
   * (raw messages and synthetic results). Constant time, for the flight recorder's assembly records.
   */
  rangeTally(from: number, to: number): RangeTally {
    const end = Math.max(0, Math.min(to, this.assembledItems.length));
    const start = Math.max(0, Math.min(from, end));
    const between = (values: readonly number[]) => (values[end] ?? 0) - (values[start] ?? 0);
    const summaries = between(this.summariesBefore);
    const summaryTokens = between(this.summaryTokensBefore);
    return {
      raw: end - start - summaries,
      summaries,
      rawTokens: between(this.tokensBefore) - summaryTokens,
      summaryTokens,
    };
  }

  /**
   * The seq of the newest stored message when the view ends with it, which is the store's newest
   * (messages are appended at the end; compaction replaces older runs). Undefined when the view is
   * empty or ends with a summary.
   */
  newestSeq(): number | undefined {
    const last = this.items.at(-1)?.ref;
    return last?.kind === "message" ? last.seq : undefined;
  }

  /** Whether `message` is one of the newest stored messages (see `messageKey`). */
  isRecentlyStored(message: AgentMessage): boolean {
    return this.recent.includes(messageKey(message));
  }

  /**
   * Whether a message (by seq) is raw in `assembledItems` at index `from` or later. Raw seqs grow
   * with position (compaction only replaces runs), so the first raw item from `from` bounds them;
   * it is found once, here, since searches ask about thousands of seqs.
   */
  rawFrom(from: number): (seq: number) => boolean {
    let firstSeq = Number.POSITIVE_INFINITY;
    for (let index = Math.max(0, from); index < this.assembledItems.length; index++) {
      const ref = (this.assembledItems[index] as ViewItem).ref;
      if (ref.kind === "message") {
        firstSeq = ref.seq;
        break;
      }
    }
    return (seq) => seq >= firstSeq && this.rawSeqs.has(seq);
  }

  /**
   * What `assembledItems[0..end)` holds: raw messages (with the seqs of the first and last) and
   * summaries. Constant time but for a walk back over the summaries just before `end`, so leaving
   * out the old part of a long view costs nothing per item.
   */
  prefixTally(end: number): { messages: number; summaries: number; firstSeq?: number; lastSeq?: number } {
    const messages = this.rawBefore[end] ?? 0;
    const tally: { messages: number; summaries: number; firstSeq?: number; lastSeq?: number } = {
      messages,
      summaries: this.summariesBefore[end] ?? 0,
    };
    if (messages === 0) return tally;
    for (let index = end - 1; index >= 0; index--) {
      const ref = (this.assembledItems[index] as ViewItem).ref;
      if (ref.kind === "message") {
        tally.lastSeq = ref.seq;
        break;
      }
    }
    for (const item of this.assembledItems) {
      if (item.ref.kind === "message") {
        tally.firstSeq = item.ref.seq;
        break;
      }
    }
    return tally;
  }

  get hasMessages(): boolean {
    return this.recent.length > 0;
  }
}

/**
 * What identifies a message across the host's history pipeline, which may rewrite its content
 * (tool-call ids, thinking blocks) but keeps its role and timestamp. Messages without a numeric
 * timestamp fall back to their JSON.
 */
export function messageKey(message: AgentMessage): string {
  const record = message as unknown as Record<string, unknown>;
  if (typeof record.timestamp === "number") return `${String(record.role)}:${record.timestamp}`;
  return JSON.stringify(message) ?? "";
}

function toolResultCallId(message: AgentMessage): string | undefined {
  const record = message as unknown as Record<string, unknown>;
  return record.role === "toolResult" && typeof record.toolCallId === "string"
    ? record.toolCallId
    : undefined;
}
