/**
 * The pre-compaction memory flush (reference: context runtime 8.7): shortly before the context
 * reaches the compaction threshold, the host runs one silent agent turn that lets the model write
 * durable notes, so what compaction summarizes away survives in `memory/YYYY-MM-DD.md`. The host
 * owns the turn; these helpers decide when and say what.
 */
import { formatLocalTime, MEMORY_FLUSH_PROMPT_START, SILENT_REPLY_TOKEN } from "@clew/core";
import { MEMORY_DIR_NAME } from "./memory-files.js";

/** Tokens kept free below the window; the flush triggers `softThreshold` before this floor. */
export const DEFAULT_MEMORY_FLUSH_RESERVE_FLOOR = 20_000;
export const DEFAULT_MEMORY_FLUSH_SOFT_THRESHOLD = 4_000;
/** The whole reply of a flush turn that stored nothing; the host hides it from the user. */
export const MEMORY_FLUSH_SILENT_TOKEN = SILENT_REPLY_TOKEN;

/** Files the flush turn must not change. */
const READ_ONLY_FILES = ["MEMORY.md", "DREAMS.md", "SOUL.md", "TOOLS.md", "AGENTS.md"];

export interface MemoryFlushGateInput {
  /** Tokens in the context now (fresh usage, or an estimate of the transcript). */
  contextTokens: number;
  /** The model's context window in tokens. */
  window: number;
  reserveFloor?: number;
  softThreshold?: number;
  /** Compactions of this session so far. */
  compactionCount: number;
  /** `compactionCount` when the session last flushed; undefined when it never did. */
  lastFlushCompactionCount?: number;
  /** Heartbeat runs never flush. */
  isHeartbeat?: boolean;
}

/** `window − reserveFloor − softThreshold`, floored at 0. */
export function memoryFlushThreshold(
  input: Pick<MemoryFlushGateInput, "window" | "reserveFloor" | "softThreshold">,
): number {
  const reserveFloor = input.reserveFloor ?? DEFAULT_MEMORY_FLUSH_RESERVE_FLOOR;
  const softThreshold = input.softThreshold ?? DEFAULT_MEMORY_FLUSH_SOFT_THRESHOLD;
  return Math.max(0, input.window - reserveFloor - softThreshold);
}

/**
 * Whether to run the flush turn before this run: not a heartbeat; the context has reached
 * `window − reserveFloor − softThreshold` (a window too small to leave a positive threshold never
 * flushes, or it would flush on every run); and the session has not flushed yet in this
 * compaction cycle (`lastFlushCompactionCount !== compactionCount`). Never throws; non-finite
 * inputs answer false.
 */
export function shouldRunMemoryFlush(input: MemoryFlushGateInput): boolean {
  if (input.isHeartbeat === true) return false;
  if (!Number.isFinite(input.contextTokens) || !Number.isFinite(input.window)) return false;
  const threshold = memoryFlushThreshold(input);
  if (threshold <= 0 || input.contextTokens < threshold) return false;
  return input.lastFlushCompactionCount !== input.compactionCount;
}

export interface MemoryFlushPrompt {
  /**
   * The silent turn's user message: what to do and the rules of the turn. The rules travel in the
   * message, not in the system prompt, so the flush call sends the same prefix as the turn before
   * it and the provider serves that prefix from its prompt cache (a section added to the system
   * prompt changed the flush call's whole prompt, a full-price call once per compaction cycle).
   */
  prompt: string;
  /** Workspace-relative note the turn may append to: `memory/YYYY-MM-DD.md`. */
  notePath: string;
  silentToken: typeof MEMORY_FLUSH_SILENT_TOKEN;
}

/**
 * The flush turn's instructions, dated in `timeZone` (an IANA zone; default the process's own).
 * Throws `InvalidOptionError` for an unknown time zone.
 */
export function memoryFlushPrompt(options: { now: number; timeZone?: string }): MemoryFlushPrompt {
  const timeZone = options.timeZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
  const localTime = formatLocalTime(options.now, timeZone);
  const notePath = `${MEMORY_DIR_NAME}/${localTime.slice(0, 10)}.md`;
  // One short paragraph: the message stays in the history (and in what recall can bring back).
  const prompt = [
    `${MEMORY_FLUSH_PROMPT_START}, a silent housekeeping turn the user does not see: the conversation`,
    "will soon be compacted and older messages summarized. Append durable notes (decisions, facts,",
    `preferences, open tasks, the exact paths, ids and commands you will need) to ${notePath} only:`,
    "create it if missing, never rewrite or delete its lines, use no other file name",
    `(not ${notePath.replace(".md", "-1.md")}). ${READ_ONLY_FILES.join(", ")} are read-only.`,
    "Keep notes short; skip notes already there. Then, or if nothing is worth storing, reply with",
    `exactly ${MEMORY_FLUSH_SILENT_TOKEN} and nothing else. Current time: ${localTime}`,
  ].join(" ");
  return { prompt, notePath, silentToken: MEMORY_FLUSH_SILENT_TOKEN };
}

/** Whether a flush turn's reply is the silent token (surrounding whitespace ignored). */
export function isSilentFlushReply(text: string): boolean {
  return text.trim() === MEMORY_FLUSH_SILENT_TOKEN;
}
