/**
 * Housekeeping turns: turns a host runs for itself, not for the user, that stay in the history
 * like any other (the pre-compaction memory flush, reference: context runtime 8.7). An engine that
 * brings earlier messages back for a prompt leaves them out: a flush's instructions recalled as
 * context read like a request to flush again.
 */
import type { AgentMessage } from "../messages.js";

/** How a memory flush prompt starts, in Clew's memory-core and in OpenClaw's default. */
export const MEMORY_FLUSH_PROMPT_START = "Pre-compaction memory flush";
/** The whole reply of a housekeeping turn with nothing to say; hosts hide it from the user. */
export const SILENT_REPLY_TOKEN = "NO_REPLY";

/**
 * Whether `message` is housekeeping: a user message that starts as a memory flush prompt and names
 * the silent token (a user writing about the flush does not do both), or an assistant reply whose
 * text is only the silent token (its thinking aside) with no tool call. Never throws: a message of
 * another shape is not housekeeping.
 */
export function isHousekeepingMessage(message: AgentMessage): boolean {
  const record = message as unknown as { role?: unknown; content?: unknown };
  if (record.role === "user") {
    const text = textOf(record.content);
    return text.trimStart().startsWith(MEMORY_FLUSH_PROMPT_START) && text.includes(SILENT_REPLY_TOKEN);
  }
  if (record.role !== "assistant" || !Array.isArray(record.content)) return false;
  const blocks = record.content as unknown[];
  if (blocks.some((block) => typeOf(block) === "toolCall")) return false;
  return textOf(blocks.filter((block) => typeOf(block) === "text")).trim() === SILENT_REPLY_TOKEN;
}

/** The text of string content or of its text blocks, joined. */
function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((block) => (typeOf(block) === "text" ? (block as { text?: unknown }).text : undefined))
    .filter((text): text is string => typeof text === "string")
    .join("\n");
}

function typeOf(block: unknown): unknown {
  return typeof block === "object" && block !== null ? (block as { type?: unknown }).type : undefined;
}
