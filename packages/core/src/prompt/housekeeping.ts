/**
 * Housekeeping turns: turns a host runs for itself, not for the user, that stay in the history
 * like any other (the pre-compaction memory flush, reference: context runtime 8.7). An engine that
 * brings earlier messages back for a prompt leaves them out: a flush's instructions recalled as
 * context read like a request to flush again.
 */

/** How a memory flush prompt starts, in Clew's memory-core and in OpenClaw's. */
export const MEMORY_FLUSH_PROMPT_START = "Pre-compaction memory flush";
/** The whole reply of a housekeeping turn with nothing to say; hosts hide it from the user. */
export const SILENT_REPLY_TOKEN = "NO_REPLY";

/**
 * Whether a message of `role` with this readable text is housekeeping: a memory flush prompt, or
 * a reply that is only the silent token.
 */
export function isHousekeepingText(role: string, text: string): boolean {
  if (role === "user") return text.trimStart().startsWith(MEMORY_FLUSH_PROMPT_START);
  if (role === "assistant") return text.trim() === SILENT_REPLY_TOKEN;
  return false;
}
