/**
 * Where the turn in progress starts in a host's message list: its user messages. The host's
 * messages after the newest stored one are the running turn (stored only at `afterTurn`); its
 * prompt is the first user message among them, and a steering message typed during the loop is a
 * later one.
 */
import {
  type AgentMessage,
  isAssistantMessage,
  isToolResultMessage,
  isUserMessage,
  toolCallsOf,
} from "@clew/core";

/** Index of the newest user message in `messages[from…]`, or -1 when there is none. */
export function newestUserIndex(messages: readonly AgentMessage[], from = 0): number {
  for (let index = messages.length - 1; index >= Math.max(0, from); index--)
    if (isUserMessage(messages[index] as AgentMessage)) return index;
  return -1;
}

/**
 * Index of the running turn's prompt in a host's message list: the newest user message that does
 * not answer into a tool loop (one right after a tool result or a call is a steering message typed
 * during the loop); the oldest such steering message when every user message is one; -1 with no
 * user message.
 */
export function runningTurnStart(messages: readonly AgentMessage[]): number {
  let oldestSteering = -1;
  for (let index = messages.length - 1; index >= 0; index--) {
    if (!isUserMessage(messages[index] as AgentMessage)) continue;
    const before = messages[index - 1];
    const steering =
      before !== undefined &&
      (isToolResultMessage(before) || (isAssistantMessage(before) && toolCallsOf(before).length > 0));
    if (!steering) return index;
    oldestSteering = index;
  }
  return oldestSteering;
}
