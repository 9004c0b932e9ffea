/**
 * The host's history pipeline (reference §13, "sanitize → validate → limit → re-pair"): what stored
 * messages become before the context engine and the provider see them. The stored transcript itself
 * is never rewritten; this only builds the model view.
 */
import type { AgentMessage } from "../messages.js";
import { convertCustomMessages, dropThinkingBlocks } from "./custom-messages.js";
import { limitHistoryTurns } from "./limit-history.js";
import { ensureUserFirst, mergeConsecutiveTurns } from "./merge-turns.js";
import { repairToolResultPairing } from "./repair-tool-pairing.js";
import { sanitizeToolCallIds } from "./tool-call-ids.js";
import type { TranscriptPolicy } from "./transcript-policy.js";

export interface PrepareHistoryOptions {
  policy: TranscriptPolicy;
  /** Keep only the last N user turns; undefined or 0 keeps everything. */
  maxUserTurns?: number;
}

/**
 * Builds the model view of a stored history, in this order:
 * custom messages → model roles (`convertCustomMessages`) → drop thinking (policy) → tool-call ids
 * (policy mode) → pairing repair (policy, with synthetic results if the policy says so) → merges of
 * consecutive user / assistant messages (policy) → assistant-first fix (policy) → limit to
 * `maxUserTurns` → pairing repair again (limiting can cut a turn apart).
 *
 * Pure: returns a new array, never mutates `messages` or the objects in it, and is idempotent
 * (`prepareHistory(prepareHistory(x))` deep-equals `prepareHistory(x)`). Unknown roles are dropped,
 * never thrown on. Throws `InvalidOptionError` only for a negative or fractional `maxUserTurns`.
 */
export function prepareHistory(messages: readonly unknown[], options: PrepareHistoryOptions): AgentMessage[] {
  const { policy } = options;
  let history = convertCustomMessages(messages);
  if (policy.dropThinking) history = dropThinkingBlocks(history);
  history = sanitizeToolCallIds(history, policy.toolCallIdMode);
  history = repairIfAsked(history, policy);
  history = mergeConsecutiveTurns(history, policy);
  if (policy.assistantFirstFix) history = ensureUserFirst(history);
  history = limitHistoryTurns(history, options.maxUserTurns);
  return repairIfAsked(history, policy);
}

function repairIfAsked(history: AgentMessage[], policy: TranscriptPolicy): AgentMessage[] {
  if (!policy.repairToolPairing) return history;
  return repairToolResultPairing(history, { insertSyntheticResults: policy.syntheticToolResults });
}
