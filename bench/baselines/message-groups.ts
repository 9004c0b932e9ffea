/**
 * How the baselines cut history into pieces they can keep or drop without breaking a tool
 * exchange: tool groups (an assistant message with its tool results) and exchanges (a user message
 * and everything up to the next one).
 */
import type { AgentMessage } from "@clew/core";

function roleOf(message: AgentMessage): string | undefined {
  return typeof message === "object" && message !== null && "role" in message
    ? String(message.role)
    : undefined;
}

/** Each tool result joins the group of the message before it; everything else starts a group. */
export function toolGroups(messages: readonly AgentMessage[]): AgentMessage[][] {
  const groups: AgentMessage[][] = [];
  for (const message of messages) {
    const last = groups.at(-1);
    if (roleOf(message) === "toolResult" && last !== undefined) last.push(message);
    else groups.push([message]);
  }
  return groups;
}

/** A group starts at every user message; messages before the first user message form one group. */
export function exchanges(messages: readonly AgentMessage[]): AgentMessage[][] {
  const groups: AgentMessage[][] = [];
  for (const message of messages) {
    const last = groups.at(-1);
    if (roleOf(message) === "user" || last === undefined) groups.push([message]);
    else last.push(message);
  }
  return groups;
}

export function startsWithUser(group: readonly AgentMessage[]): boolean {
  const first = group[0];
  return first !== undefined && roleOf(first) === "user";
}
