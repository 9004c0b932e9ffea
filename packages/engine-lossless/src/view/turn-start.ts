/**
 * Where the turn in progress starts in a host's message list: its user messages. The host's
 * messages after the newest stored one are the running turn (stored only at `afterTurn`); its
 * prompt is the first user message among them, and a steering message typed during the loop is a
 * later one.
 */
import type { AgentMessage } from "@clew/core";

export function isUserMessage(message: AgentMessage | undefined): boolean {
  return (message as unknown as Record<string, unknown> | undefined)?.role === "user";
}

/** Index of the newest user message in `messages[from…]`, or -1 when there is none. */
export function newestUserIndex(messages: readonly AgentMessage[], from = 0): number {
  for (let index = messages.length - 1; index >= Math.max(0, from); index--)
    if (isUserMessage(messages[index])) return index;
  return -1;
}
