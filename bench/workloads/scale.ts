/**
 * Synthetic sessions of any length, made by replaying real message entries copy after copy.
 * Every copy gets its own entry ids and tool-call ids, and its messages move later in time, so
 * the result is one valid, linear transcript: no duplicate ids, each tool result still answers the
 * call of its own copy, and no two messages are identical (as in a real session, where a repeated
 * "yes" still has its own time), which engines that store by content identity rely on.
 */
import {
  type AgentMessage,
  InvalidOptionError,
  isAssistantMessage,
  isMessageEntry,
  isToolResultMessage,
  type MessageEntry,
  type NewTranscriptEntry,
  type TranscriptEntry,
} from "@clew/core";

/**
 * Yields exactly `targetMessages` message entries: the message entries of each source in order,
 * then again from the first source, and so on. Copy `n` (one pass over one source) suffixes entry
 * ids with `-n` and tool-call ids with `_n` (which keeps them valid under the strict
 * `[A-Za-z0-9_-]` id policy) and moves message timestamps `n × COPY_SPAN_MS` later; each entry's
 * parent is the entry yielded before it. Copy 0 is the sources' messages themselves; sources are
 * never mutated. The last copy may stop inside a tool call, as a session cut off mid-turn would.
 *
 * Throws `InvalidOptionError` for a negative or fractional `targetMessages`, or when a positive
 * count is asked of sources holding no message entries.
 */
export function* replayMessages(
  sources: readonly (readonly TranscriptEntry[])[],
  targetMessages: number,
): Generator<NewTranscriptEntry> {
  if (!Number.isInteger(targetMessages) || targetMessages < 0) {
    throw new InvalidOptionError("targetMessages", targetMessages, "a whole number ≥ 0");
  }
  const messageSources = sources.map((entries) => entries.filter(isMessageEntry));
  if (targetMessages > 0 && messageSources.every((entries) => entries.length === 0)) {
    throw new InvalidOptionError("sources", "no message entries", "at least one message entry to replay");
  }
  let produced = 0;
  let copy = 0;
  let parentId: string | null = null;
  while (produced < targetMessages) {
    for (const entries of messageSources) {
      for (const entry of entries) {
        if (produced >= targetMessages) return;
        const rekeyed = rekeyEntry(entry, copy, parentId);
        yield rekeyed;
        parentId = rekeyed.id ?? null;
        produced += 1;
      }
      copy += 1;
    }
  }
}

/** How much later each copy's messages are: longer than either recorded session lasts. */
export const COPY_SPAN_MS = 30 * 24 * 3_600_000;

function rekeyEntry(entry: MessageEntry, copy: number, parentId: string | null): NewTranscriptEntry {
  return {
    ...entry,
    id: `${entry.id}-${copy}`,
    parentId,
    message: shiftTimestamp(rekeyToolCalls(entry.message, copy), copy),
  };
}

function shiftTimestamp(message: AgentMessage, copy: number): AgentMessage {
  const timestamp = (message as { timestamp?: unknown }).timestamp;
  if (copy === 0 || typeof timestamp !== "number") return message;
  return { ...message, timestamp: timestamp + copy * COPY_SPAN_MS } as AgentMessage;
}

/** The message with every tool-call id it holds suffixed by `_copy`; others returned as they are. */
export function rekeyToolCalls(message: AgentMessage, copy: number): AgentMessage {
  if (isToolResultMessage(message)) return { ...message, toolCallId: `${message.toolCallId}_${copy}` };
  if (!isAssistantMessage(message) || !message.content.some((block) => block.type === "toolCall")) {
    return message;
  }
  return {
    ...message,
    content: message.content.map((block) =>
      block.type === "toolCall" ? { ...block, id: `${block.id}_${copy}` } : block,
    ),
  };
}
