/**
 * In-memory session pruning (reference §9): once a provider's prompt cache has expired, re-sending
 * old, bulky tool results costs full price, so they are trimmed for the request. Only the request's
 * view changes; the transcript keeps everything.
 */
import type { AgentMessage, ToolResultMessage } from "../messages.js";
import { estimateStringChars, messageChars } from "../tokens/estimate.js";
import { type ContextPruningSettings, createToolPrunablePredicate } from "./settings.js";

// Pruning compares chars against the window at the estimator's chars-per-token rate.
const CHARS_PER_TOKEN = 4;

export interface PruneContextOptions {
  settings: ContextPruningSettings;
  /** The model's context window in tokens; 0, negative or not finite disables pruning. */
  contextWindowTokens: number;
  /** Current time (ms since the epoch), injected so tests control the TTL gate. */
  now: number;
  /** When the provider's prompt cache was last written or read (ms); undefined = unknown. */
  lastCacheTouchAt: number | undefined;
}

export interface PruneContextResult {
  /** A new array, the same length as the input; changed entries are copies. */
  messages: AgentMessage[];
  changed: boolean;
  softTrimmed: number;
  hardCleared: number;
  /** Estimated chars of all messages before and after pruning (`messageChars`). */
  charsBefore: number;
  charsAfter: number;
}

/**
 * Whether the TTL gate opens: mode `cache-ttl`, a known last cache touch, and at least `ttlMs`
 * elapsed since it.
 */
export function isPruningDue(
  settings: ContextPruningSettings,
  now: number,
  lastCacheTouchAt: number | undefined,
): boolean {
  if (settings.mode !== "cache-ttl" || lastCacheTouchAt === undefined) return false;
  return now - lastCacheTouchAt >= settings.ttlMs;
}

/**
 * Trims old tool results for one request (reference §9):
 * 1. Nothing happens unless `isPruningDue`, the window is positive, and there are at least
 *    `keepLastAssistants` assistant messages. Messages from the `keepLastAssistants`-th-last
 *    assistant message on, and everything before the first user message, are protected.
 * 2. Below `softTrimRatio` of the char window (`contextWindowTokens × 4`) nothing changes.
 * 3. Soft trim: each prunable tool result (unprotected, tool allowed by `tools`, no image blocks)
 *    whose joined text exceeds `softTrim.maxChars` becomes its first `headChars` + `\n...\n` + last
 *    `tailChars`, plus the note `[Tool result trimmed: kept first H chars and last T chars of N chars.]`.
 *    All char counts are CJK-aware estimates (`estimateStringChars`), head and tail included.
 * 4. Hard clear: if the ratio is still at least `hardClearRatio`, hard clear is enabled and prunable
 *    results hold at least `minPrunableToolChars`, prunable results are replaced by the placeholder,
 *    oldest first, until the ratio drops below `hardClearRatio`.
 * A trim or clear that would not make a result smaller is skipped, so the total never grows.
 * Only `toolResult` messages change. Never mutates the input or its messages; never throws.
 */
export function pruneContext(
  messages: readonly AgentMessage[],
  options: PruneContextOptions,
): PruneContextResult {
  const sizes = messages.map(messageChars);
  const charsBefore = sizes.reduce((sum, size) => sum + size, 0);
  const unchanged: PruneContextResult = {
    messages: [...messages],
    changed: false,
    softTrimmed: 0,
    hardCleared: 0,
    charsBefore,
    charsAfter: charsBefore,
  };
  const { settings, contextWindowTokens } = options;
  if (!isPruningDue(settings, options.now, options.lastCacheTouchAt)) return unchanged;
  if (!Number.isFinite(contextWindowTokens) || contextWindowTokens <= 0) return unchanged;
  const candidates = prunableIndexes(messages, settings);
  if (candidates === undefined) return unchanged;
  const charWindow = contextWindowTokens * CHARS_PER_TOKEN;
  if (charsBefore / charWindow < settings.softTrimRatio) return unchanged;

  const pruning = new PruningPass(messages, sizes, charsBefore);
  for (const index of candidates) pruning.softTrim(index, settings.softTrim);
  if (shouldHardClear(pruning, candidates, settings, charWindow)) {
    for (const index of candidates) {
      if (pruning.chars / charWindow < settings.hardClearRatio) break;
      pruning.hardClear(index, settings.hardClear.placeholder);
    }
  }
  return pruning.result(charsBefore);
}

function shouldHardClear(
  pruning: PruningPass,
  candidates: readonly number[],
  settings: ContextPruningSettings,
  charWindow: number,
): boolean {
  if (!settings.hardClear.enabled || pruning.chars / charWindow < settings.hardClearRatio) return false;
  const prunableChars = candidates.reduce((sum, index) => sum + pruning.charsAt(index), 0);
  return prunableChars >= settings.minPrunableToolChars;
}

/** Indexes of prunable tool results, oldest first; undefined when too few assistant messages exist. */
function prunableIndexes(
  messages: readonly AgentMessage[],
  settings: ContextPruningSettings,
): number[] | undefined {
  const protectedFrom = protectedTailStart(messages, settings.keepLastAssistants);
  if (protectedFrom === undefined) return undefined;
  const firstUser = messages.findIndex((message) => message.role === "user");
  if (firstUser === -1) return [];
  const isPrunable = createToolPrunablePredicate(settings.tools);
  const indexes: number[] = [];
  for (let index = firstUser; index < protectedFrom; index++) {
    const message = messages[index];
    if (message?.role !== "toolResult" || hasImage(message)) continue;
    if (isPrunable(message.toolName)) indexes.push(index);
  }
  return indexes;
}

function protectedTailStart(
  messages: readonly AgentMessage[],
  keepLastAssistants: number,
): number | undefined {
  if (keepLastAssistants <= 0) return messages.length;
  let remaining = keepLastAssistants;
  for (let index = messages.length - 1; index >= 0; index--) {
    if (messages[index]?.role !== "assistant") continue;
    remaining--;
    if (remaining === 0) return index;
  }
  return undefined;
}

/**
 * The working copy of one pruning run: replaced messages, their char estimates (kept so each large
 * result is measured once) and the running total.
 */
class PruningPass {
  private readonly output: AgentMessage[];
  private readonly sizes: number[];
  private softTrimmed = 0;
  private hardCleared = 0;
  chars: number;

  constructor(messages: readonly AgentMessage[], sizes: readonly number[], chars: number) {
    this.output = [...messages];
    this.sizes = [...sizes];
    this.chars = chars;
  }

  charsAt(index: number): number {
    return this.sizes[index] ?? 0;
  }

  softTrim(index: number, limits: ContextPruningSettings["softTrim"]): void {
    const message = this.output[index];
    if (message?.role !== "toolResult") return;
    // Candidates hold no images, so text chars plus one per "\n" separator is the joined estimate.
    const trimmed = softTrimmedText(message, this.charsAt(index) + message.content.length - 1, limits);
    if (trimmed !== undefined && this.replace(index, message, trimmed)) this.softTrimmed++;
  }

  hardClear(index: number, placeholder: string): void {
    const message = this.output[index];
    if (message?.role !== "toolResult") return;
    if (this.replace(index, message, placeholder)) this.hardCleared++;
  }

  result(charsBefore: number): PruneContextResult {
    return {
      messages: this.output,
      changed: this.softTrimmed + this.hardCleared > 0,
      softTrimmed: this.softTrimmed,
      hardCleared: this.hardCleared,
      charsBefore,
      charsAfter: this.chars,
    };
  }

  // Replaces the result's content with one text block, only if that makes it smaller.
  private replace(index: number, message: ToolResultMessage, text: string): boolean {
    const replacement: ToolResultMessage = { ...message, content: [{ type: "text", text }] };
    const size = messageChars(replacement);
    const saved = this.charsAt(index) - size;
    if (saved <= 0) return false;
    this.output[index] = replacement;
    this.sizes[index] = size;
    this.chars -= saved;
    return true;
  }
}

/**
 * The soft-trimmed text of a result without images, or undefined when it is short enough to keep.
 * `length` is its joined-text estimate (the caller knows it: text chars plus one per separator).
 */
function softTrimmedText(
  message: ToolResultMessage,
  length: number,
  limits: ContextPruningSettings["softTrim"],
): string | undefined {
  if (length <= limits.maxChars || limits.headChars + limits.tailChars >= length) return undefined;
  const joined = message.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("\n");
  const head = joined.slice(0, headUnits(joined, limits.headChars));
  const tail = joined.slice(joined.length - tailUnits(joined, limits.tailChars));
  const note = `[Tool result trimmed: kept first ${limits.headChars} chars and last ${limits.tailChars} chars of ${length} chars.]`;
  return `${head}\n...\n${tail}\n\n${note}`;
}

// The code units of the longest prefix whose estimate fits `budget`. Walks code points (never
// splitting a surrogate pair) and stops early, so a 100 KB result costs only its head.
function headUnits(text: string, budget: number): number {
  let used = 0;
  let units = 0;
  for (const codePoint of text) {
    used += estimateStringChars(codePoint);
    if (used > budget) break;
    units += codePoint.length;
  }
  return units;
}

// The code units of the longest suffix whose estimate fits `budget`, walking backwards.
function tailUnits(text: string, budget: number): number {
  let used = 0;
  let start = text.length;
  while (start > 0) {
    const pairStart = start >= 2 && isSurrogatePair(text, start - 2);
    const codePoint = text.slice(pairStart ? start - 2 : start - 1, start);
    used += estimateStringChars(codePoint);
    if (used > budget) break;
    start -= codePoint.length;
  }
  return text.length - start;
}

function isSurrogatePair(text: string, index: number): boolean {
  const high = text.charCodeAt(index);
  const low = text.charCodeAt(index + 1);
  return high >= 0xd800 && high <= 0xdbff && low >= 0xdc00 && low <= 0xdfff;
}

function hasImage(message: ToolResultMessage): boolean {
  return message.content.some((block) => block.type === "image");
}
