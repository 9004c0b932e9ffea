/**
 * Assembly from a session view, in time proportional to what changed: the view's messages and
 * token counts are already in memory, the host's messages after the newest stored one (the
 * current turn's steps, stored only after the turn) are the only ones counted, and the budget fit
 * walks back from the newest item only when the whole view does not fit.
 */
import type { AgentMessage, TokenCounter } from "@clew/core";
import type { SessionView, ViewItem } from "../view/session-view.js";
import { runningTurnStart } from "../view/turn-start.js";
import { syntheticResultTokens } from "../view/unanswered-calls.js";
import { type AssemblyEntry, type FitResult, fitToBudget, type OmittedTally } from "./fit-to-budget.js";

/**
 * Host messages examined from the end when looking for the newest stored one. A turn's tool loop
 * is stored only when the turn ends, so a long loop puts hundreds of messages after it.
 */
const LIVE_SCAN_LIMIT = 4_096;

export interface AssembledView extends Omit<FitResult, "cutAt" | "pinKept"> {
  /**
   * Messages at the end that stand for what the engine has not stored yet: the host's, and the
   * synthetic results grouping them. Synthetic results that answer the view's newest calls before
   * any of them belong with the view (the next turn's view holds them in the same place).
   */
  live: number;
  /** False when the host's history did not contain any recently stored message. */
  liveFound: boolean;
  /** Index in `view.assembledItems` of the oldest item kept; items before it were left out. */
  keptFrom: number;
  /**
   * The host's messages not stored yet that were left out, oldest first: the oldest steps of a
   * running turn whose tool loop outgrew the budget (the digest stands in for them).
   */
  leftOutLive: LiveEntry[];
  /** Whether the running turn's prompt, when the host's messages hold one, is among those sent. */
  promptKept: boolean;
}

/** A host message not stored yet, with its count. */
export interface LiveEntry {
  message: AgentMessage;
  tokens: number;
}

export function assembleView(
  view: SessionView,
  hostMessages: readonly AgentMessage[],
  budget: number,
  counter: TokenCounter,
): AssembledView {
  const { messages: unstored, found } = unstoredTail(view, hostMessages);
  // Grouped as the view will group them once stored: calls left unanswered (the view's newest
  // among them) get synthetic results, and results without their call are left out.
  const live = view.assembledAfter(unstored);
  const fromHost = new Set(unstored);
  // Synthetic results are counted as the view counts them, so a budget that fits them now still
  // fits them once stored.
  const liveTokens = live.map((message) =>
    fromHost.has(message) ? counter.countMessage(message) : syntheticResultTokens(message),
  );
  const liveTotal = liveTokens.reduce((sum, tokens) => sum + tokens, 0);
  let viewAnswers = 0;
  while (viewAnswers < live.length && !fromHost.has(live[viewAnswers] as AgentMessage)) viewAnswers += 1;
  const liveCount = live.length - viewAnswers;
  if (view.assembledTokens + liveTotal <= budget) {
    return {
      messages: [...view.assembled, ...live],
      tokens: view.assembledTokens + liveTotal,
      omitted: 0,
      clipped: 0,
      live: liveCount,
      liveFound: found,
      keptFrom: 0,
      leftOutLive: [],
      promptKept: true,
    };
  }
  // Only the newest items that fit can be kept: older ones are counted for the note, not copied.
  const items = view.assembledItems;
  let first = items.length;
  let suffix = liveTotal;
  while (first > 0 && suffix + (items[first - 1] as ViewItem).tokens <= budget) {
    first -= 1;
    suffix += (items[first] as ViewItem).tokens;
  }
  // Start at the group that did not fit, so cuts and clipping see whole groups.
  if (first > 0) first -= 1;
  while (first > 0 && !(items[first] as ViewItem).startsGroup) first -= 1;
  const before = tallyOf(view.prefixTally(first));
  const entries: AssemblyEntry[] = [
    ...items.slice(first).map(entryOf),
    ...live.map((message, index) => ({
      message,
      tokens: liveTokens[index] ?? 0,
      startsGroup: (message as unknown as Record<string, unknown>).role !== "toolResult",
      label: undefined,
    })),
  ];
  const pinned = turnPrompt(entries, live.length);
  const { cutAt, pinKept, ...fitted } = fitToBudget(entries, budget, counter, before, pinned);
  // Every item before `first` was tallied once, so `omitted` counts items from the view's start.
  const keptFrom = Math.min(fitted.omitted, items.length);
  const liveStart = items.length - first;
  const leftOutLive: LiveEntry[] = [];
  for (let index = liveStart; index < cutAt; index++) {
    const { message, tokens } = entries[index] as AssemblyEntry;
    if (fromHost.has(message) && !(pinKept && index === pinned)) leftOutLive.push({ message, tokens });
  }
  const promptKept = pinned === undefined || pinKept || (pinned >= cutAt && fitted.messages.length > 0);
  return { ...fitted, live: liveCount, liveFound: found, keptFrom, leftOutLive, promptKept };
}

/**
 * Index in `entries` of the running turn's prompt among the last `live` entries (the host's
 * messages not stored yet; see `runningTurnStart`), or undefined. Live entries may hold older
 * turns too (a view that stored nothing): the prompt is the running turn's, not the oldest. Keeping
 * it apart never separates a result from its call: live messages are grouped (`assembledAfter`),
 * so a user message always starts a group of its own.
 */
function turnPrompt(entries: readonly AssemblyEntry[], live: number): number | undefined {
  const liveStart = Math.max(0, entries.length - live);
  const start = runningTurnStart(entries.slice(liveStart).map((entry) => entry.message));
  return start < 0 ? undefined : liveStart + start;
}

function tallyOf(prefix: ReturnType<SessionView["prefixTally"]>): OmittedTally {
  const tally: OmittedTally = { messages: prefix.messages, summaries: prefix.summaries, unstored: 0 };
  if (prefix.firstSeq !== undefined) tally.firstMessage = `m${prefix.firstSeq}`;
  if (prefix.lastSeq !== undefined) tally.lastMessage = `m${prefix.lastSeq}`;
  return tally;
}

function labelOf(item: ViewItem): string {
  return item.ref.kind === "message" ? `m${item.ref.seq}` : item.ref.summaryId;
}

function entryOf(item: ViewItem): AssemblyEntry {
  return { message: item.message, tokens: item.tokens, startsGroup: item.startsGroup, label: labelOf(item) };
}

/** The host's messages after the newest one the view holds (none when it holds none of them). */
function unstoredTail(
  view: SessionView,
  hostMessages: readonly AgentMessage[],
): { messages: AgentMessage[]; found: boolean } {
  const stop = Math.max(0, hostMessages.length - LIVE_SCAN_LIMIT);
  for (let index = hostMessages.length - 1; index >= stop; index--) {
    if (view.isRecentlyStored(hostMessages[index] as AgentMessage)) {
      return { messages: hostMessages.slice(index + 1), found: true };
    }
  }
  // A view that holds nothing (a session's first turn, before anything is stored) has nothing to
  // find: every host message is unstored.
  if (view.items.length === 0) return { messages: [...hostMessages], found: true };
  // Nothing recent matched (a host history rewritten past recognition, or a loop longer than the
  // scan): the current turn, from its prompt (not a steering message typed during its loop), still
  // goes in raw rather than being lost.
  const turnStart = runningTurnStart(hostMessages.slice(stop));
  const messages = turnStart < 0 ? [] : hostMessages.slice(stop + turnStart);
  return { messages, found: hostMessages.length === 0 };
}
