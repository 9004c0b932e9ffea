/**
 * Housekeeping among stored messages (`isHousekeepingMessage` of core: a memory flush prompt and
 * its silent reply), which query-aware evidence never brings back.
 */
import { type AgentMessage, isHousekeepingMessage, SILENT_REPLY_TOKEN } from "@clew/core";

/**
 * Whether a stored message is housekeeping. Both kinds hold the silent token, so only those
 * messages are parsed; a message whose JSON does not parse is not housekeeping.
 */
export function isStoredHousekeeping(stored: { role: string; json: string }): boolean {
  if ((stored.role !== "user" && stored.role !== "assistant") || !stored.json.includes(SILENT_REPLY_TOKEN))
    return false;
  try {
    return isHousekeepingMessage(JSON.parse(stored.json) as AgentMessage);
  } catch {
    return false;
  }
}
