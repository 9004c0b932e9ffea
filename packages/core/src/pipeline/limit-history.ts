/**
 * History limiting by user turns (per-channel `historyLimit` / `dmHistoryLimit`). It counts user
 * messages, not tokens: a chat channel wants "the last N exchanges", whatever their size.
 */
import { InvalidOptionError } from "../errors.js";
import type { AgentMessage } from "../messages.js";

/**
 * Keeps the last `maxUserTurns` user turns: the slice starting at the N-th-last user message.
 * `undefined` or 0 means no limit; a history with N or fewer user messages is kept whole (as a new
 * array). Throws `InvalidOptionError` when `maxUserTurns` is negative, fractional or not finite.
 * Never mutates its input. Cutting can orphan tool results, so callers re-pair afterwards.
 */
export function limitHistoryTurns(
  messages: readonly AgentMessage[],
  maxUserTurns: number | undefined,
): AgentMessage[] {
  if (maxUserTurns === undefined || maxUserTurns === 0) return [...messages];
  if (!Number.isSafeInteger(maxUserTurns) || maxUserTurns < 0) {
    throw new InvalidOptionError("maxUserTurns", maxUserTurns, "a non-negative integer");
  }
  let userTurns = 0;
  let sliceStart = 0;
  for (let index = messages.length - 1; index >= 0; index--) {
    if (messages[index]?.role !== "user") continue;
    userTurns++;
    // One user message more than the limit proves the cut is needed; it starts at the previous one.
    if (userTurns > maxUserTurns) return messages.slice(sliceStart);
    sliceStart = index;
  }
  return [...messages];
}
