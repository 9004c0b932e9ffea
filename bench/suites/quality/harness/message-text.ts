/** The text of messages as the quality metrics match it: readable parts, whitespace normalized. */
import { type AgentMessage, readableTextParts } from "@clew/core";

export function normalizeWhitespace(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/** One message's readable text (tool-call arguments by their string values), normalized. */
export function messageText(message: AgentMessage): string {
  return normalizeWhitespace(readableTextParts(message).join("\n"));
}

/** All of `messages` as one normalized string, messages separated by a space. */
export function contextText(messages: readonly AgentMessage[]): string {
  return messages.map(messageText).join(" ");
}
