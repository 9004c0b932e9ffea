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

/** Whether `message` is a tool result. */
export function isToolResult(message: AgentMessage | undefined): boolean {
  return message !== undefined && isToolResultMessage(message);
}

/** Whether `message` is an assistant message calling tools (its results follow it). */
export function hasToolCalls(message: AgentMessage | undefined): boolean {
  return message !== undefined && isAssistantMessage(message) && toolCallsOf(message).length > 0;
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
    if (!isToolResult(before) && !hasToolCalls(before)) return index;
    oldestSteering = index;
  }
  return oldestSteering;
}
