/**
 * Fits an ordered list of context entries into a token budget, never over it, counting with the
 * token counts cached on each entry (nothing is re-counted unless a message has to be shortened).
 *
 * 1. Everything fits: everything is returned, unchanged.
 * 2. Otherwise the oldest entries are left out, cutting only where a tool group starts, and a short
 *    note in front says what was left out and how to read it back (nothing is ever dropped
 *    silently). The newest entries are kept. When there is room, the engine then puts a digest of
 *    what was left out in the note's place (`history-digest.ts`). A pinned entry (the prompt of a
 *    turn still running) is kept when the cut passes it, right after the note: a tool loop that
 *    outgrew the budget loses its oldest steps, not the instruction it is carrying out (unless
 *    the pin and the newest group cannot fit together, shortened or not).
 * 3. When even the newest group does not fit, its largest messages are shortened for display
 *    (`clipMessage`); if that cannot make it fit, the result is the note alone, or nothing.
 */
import type { AgentMessage, TokenCounter } from "@clew/core";
import { clipMessage } from "./clip-message.js";

export interface AssemblyEntry {
  message: AgentMessage;
  tokens: number;
  startsGroup: boolean;
  /** `m12` or `sum_…` for stored items; undefined for the host's not-yet-stored messages. */
  label: string | undefined;
}

/** What was left out ahead of the entries being fitted, counted without listing it. */
export interface OmittedTally {
  messages: number;
  firstMessage?: string;
  lastMessage?: string;
  summaries: number;
  /** The host's messages not stored yet. */
  unstored: number;
}

export function emptyTally(): OmittedTally {
  return { messages: 0, summaries: 0, unstored: 0 };
}

/** Counts `entry` as left out (entries must be added oldest first). */
export function addToTally(tally: OmittedTally, label: string | undefined): void {
  if (label === undefined) tally.unstored += 1;
  else if (label.startsWith("sum_")) tally.summaries += 1;
  else {
    tally.messages += 1;
    tally.firstMessage ??= label;
    tally.lastMessage = label;
  }
}

export interface FitResult {
  messages: AgentMessage[];
  tokens: number;
  /** Entries left out (the note counts none of them). */
  omitted: number;
  /** Messages shortened for display. */
  clipped: number;
  /**
   * Index in the entries given of the first one kept after the note (`entries.length` when none
   * was): the entries before it were left out, except a pinned entry kept in front (`pinKept`).
   */
  cutAt: number;
  /** Whether the pinned entry was kept although the cut passed it. */
  pinKept: boolean;
}

/**
 * Fits `entries` into `budget`. `before` counts entries already left out ahead of them (the caller
 * may pass only the newest entries that could fit, so long views cost nothing extra here).
 * `pinned` is the index of an entry kept wherever the cut falls, as long as it fits beside the
 * newest group (shortened if need be).
 */
export function fitToBudget(
  entries: readonly AssemblyEntry[],
  budget: number,
  counter: TokenCounter,
  before: OmittedTally = emptyTally(),
  pinned?: number,
): FitResult {
  const total = entries.reduce((sum, entry) => sum + entry.tokens, 0);
  const omittedBefore = before.messages + before.summaries + before.unstored;
  if (total <= budget && omittedBefore === 0) {
    return {
      messages: entries.map((entry) => entry.message),
      tokens: total,
      omitted: 0,
      clipped: 0,
      cutAt: 0,
      pinKept: false,
    };
  }
  // A pin that is the newest entry is the newest group: kept without help.
  const pin = pinned === undefined || pinned >= entries.length - 1 ? undefined : entries[pinned];
  const tally = { ...before };
  let tallied = 0;
  let cut = newestFittingCut(entries, budget);
  // Past the pin, the pin's tokens come out of the room for the newest entries.
  if (pin !== undefined && cut > (pinned as number)) cut = newestFittingCut(entries, budget - pin.tokens);
  while (cut < entries.length) {
    for (; tallied < cut; tallied++) if (tallied !== pinned) addToTally(tally, entries[tallied]?.label);
    const note = omissionNote(tally, counter);
    const head = pin !== undefined && cut > (pinned as number) ? [pin] : [];
    const kept = suffixTokens(entries, cut) + (head[0]?.tokens ?? 0);
    if (kept + note.tokens <= budget) {
      const messages = [note.message, ...[...head, ...entries.slice(cut)].map((entry) => entry.message)];
      const omitted = omittedBefore + cut - head.length;
      return {
        messages,
        tokens: kept + note.tokens,
        omitted,
        clipped: 0,
        cutAt: cut,
        pinKept: head.length > 0,
      };
    }
    cut = nextGroupStart(entries, cut);
  }
  if (pin !== undefined) {
    const withoutPin = entries.filter((_, index) => index !== pinned);
    const fitted = fitNewestGroupClipped(withoutPin, budget - pin.tokens, counter, before);
    // The newest group fits beside the pin (clipped if need be), or else nothing is pinned.
    if (fitted.messages.length > 0 && fitted.omitted < omittedBefore + withoutPin.length)
      return withPin(fitted, pin, pinned as number);
  }
  return fitNewestGroupClipped(entries, budget, counter, before);
}

/**
 * `fitted` (fitted without the pinned entry, at index `pinned`) with that entry put back in front
 * of what it kept, after the note.
 */
function withPin(fitted: FitResult, pin: AssemblyEntry, pinned: number): FitResult {
  const messages = [...fitted.messages];
  messages.splice(isOmissionNote(messages[0]) ? 1 : 0, 0, pin.message);
  const cutAt = fitted.cutAt >= pinned ? fitted.cutAt + 1 : fitted.cutAt;
  return { ...fitted, messages, tokens: fitted.tokens + pin.tokens, cutAt, pinKept: cutAt > pinned };
}

/** The earliest group start whose suffix fits `budget` (entries.length when none does). */
function newestFittingCut(entries: readonly AssemblyEntry[], budget: number): number {
  let suffix = 0;
  let cut = entries.length;
  for (let index = entries.length - 1; index >= 0; index--) {
    suffix += entries[index]?.tokens ?? 0;
    if (suffix > budget) break;
    if (entries[index]?.startsGroup) cut = index;
  }
  return cut;
}

function nextGroupStart(entries: readonly AssemblyEntry[], after: number): number {
  let index = after + 1;
  while (index < entries.length && !entries[index]?.startsGroup) index++;
  return index;
}

function suffixTokens(entries: readonly AssemblyEntry[], from: number): number {
  let sum = 0;
  for (let index = from; index < entries.length; index++) sum += entries[index]?.tokens ?? 0;
  return sum;
}

/** The newest group with its largest messages shortened, behind the note, or as little as fits. */
function fitNewestGroupClipped(
  entries: readonly AssemblyEntry[],
  budget: number,
  counter: TokenCounter,
  before: OmittedTally,
): FitResult {
  let groupStart = Math.max(0, entries.length - 1);
  while (groupStart > 0 && !entries[groupStart]?.startsGroup) groupStart--;
  const tally = { ...before };
  for (let index = 0; index < groupStart; index++) addToTally(tally, entries[index]?.label);
  const omittedBefore = before.messages + before.summaries + before.unstored;
  const anyOmitted = groupStart > 0 || omittedBefore > 0;
  const note = omissionNote(tally, counter);
  const group = entries.slice(groupStart).map((entry) => ({ ...entry }));
  const room = budget - (anyOmitted ? note.tokens : 0);
  const clipped = clipLargest(group, room, counter);
  const used = group.reduce((sum, entry) => sum + entry.tokens, 0);
  if (used <= room) {
    const head = anyOmitted ? [note.message] : [];
    const messages = [...head, ...group.map((entry) => entry.message)];
    return {
      messages,
      tokens: used + (anyOmitted ? note.tokens : 0),
      omitted: omittedBefore + groupStart,
      clipped,
      cutAt: groupStart,
      pinKept: false,
    };
  }
  for (let index = groupStart; index < entries.length; index++) addToTally(tally, entries[index]?.label);
  const everything = omissionNote(tally, counter);
  const omitted = omittedBefore + entries.length;
  if (everything.tokens <= budget) {
    return {
      messages: [everything.message],
      tokens: everything.tokens,
      omitted,
      clipped: 0,
      cutAt: entries.length,
      pinKept: false,
    };
  }
  return { messages: [], tokens: 0, omitted, clipped: 0, cutAt: entries.length, pinKept: false };
}

/** Shortens the group's largest messages, in place, until it fits `room`; returns how many. */
function clipLargest(group: AssemblyEntry[], room: number, counter: TokenCounter): number {
  let clipped = 0;
  let used = group.reduce((sum, entry) => sum + entry.tokens, 0);
  const tried = new Set<AssemblyEntry>();
  while (used > room) {
    const largest = group
      .filter((entry) => !tried.has(entry))
      .sort((left, right) => right.tokens - left.tokens)[0];
    if (largest === undefined) break;
    tried.add(largest);
    const target = largest.tokens - (used - room);
    const label =
      largest.label === undefined
        ? "it is stored after this turn"
        : `recall_read ${largest.label} returns it whole`;
    const shorter = target > 0 ? clipMessage(largest.message, target, counter, label) : undefined;
    if (shorter === undefined) continue;
    const tokens = counter.countMessage(shorter);
    used += tokens - largest.tokens;
    largest.message = shorter;
    largest.tokens = tokens;
    clipped += 1;
  }
  return clipped;
}

/** Notes made here, so a caller can tell the note from the messages it was fitted with. */
const omissionNotes = new WeakSet<object>();

/** Whether `message` is the note `fitToBudget` put in front of what it kept. */
export function isOmissionNote(message: AgentMessage | undefined): boolean {
  return message !== undefined && omissionNotes.has(message);
}

/** `12 messages (m1–m12), 2 summaries`: what a tally counts, for notes. */
export function describeOmitted(tally: OmittedTally): string {
  const parts: string[] = [];
  if (tally.messages > 0) {
    const span = tally.messages === 1 ? tally.firstMessage : `${tally.firstMessage}–${tally.lastMessage}`;
    parts.push(`${tally.messages} messages (${span})`);
  }
  if (tally.summaries > 0) parts.push(`${tally.summaries} summaries`);
  if (tally.unstored > 0) parts.push(`${tally.unstored} messages of this turn`);
  return parts.join(", ");
}

/**
 * How what was left out can be read back. A running turn's messages are stored when it ends, so
 * until then the recall tools cannot find them: the note must not send the model looking.
 */
export function recallClause(tally: OmittedTally): string {
  if (tally.unstored === 0) return "recall_search and recall_read return them verbatim.";
  const turn =
    "this turn's are stored when it ends, and recall_search and recall_read find them from then on.";
  return tally.messages + tally.summaries > 0
    ? `recall_search and recall_read return the earlier ones verbatim; ${turn}`
    : turn.charAt(0).toUpperCase() + turn.slice(1);
}

/** The note standing in for the entries left out. */
function omissionNote(tally: OmittedTally, counter: TokenCounter): { message: AgentMessage; tokens: number } {
  const text =
    `[Context note] ${describeOmitted(tally)} from earlier in this conversation are left out to fit the ` +
    `context budget. Nothing was deleted: ${recallClause(tally)}`;
  const message: AgentMessage = { role: "user", content: text, timestamp: 0 };
  omissionNotes.add(message);
  return { message, tokens: counter.countMessage(message) };
}
