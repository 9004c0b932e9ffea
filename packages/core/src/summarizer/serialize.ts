/**
 * A conversation span as plain text for a summarizing model, in pi's layout. Serializing (rather
 * than sending the messages as chat turns) keeps the model from answering the conversation: it
 * reads a transcript and describes it.
 */
import type { AgentMessage, AssistantMessage, ToolCall } from "../messages.js";
import { safeJson } from "../tokens/message-text.js";

/** Tool output and other bulky text is cut to this many characters (pi's figure). */
export const SERIALIZED_TEXT_LIMIT = 2_000;

/**
 * One block per message part, separated by blank lines:
 * `[User]: …`, `[Assistant thinking]: …`, `[Assistant]: …`,
 * `[Assistant tool calls]: name(key=value, …); …`, `[Tool result]: …`, `[Bash]: $ command` + output,
 * and `[<role>]: …` for other messages. Tool results, bash output, tool-call argument values and
 * other messages are cut by `truncateForSummary`; user and assistant text is kept whole.
 * Deterministic; never throws.
 */
export function serializeConversation(messages: readonly AgentMessage[]): string {
  return messages.flatMap(serializeMessage).join("\n\n");
}

/** `text` cut to `limit` characters, followed by `[... N more characters truncated]`. */
export function truncateForSummary(text: string, limit = SERIALIZED_TEXT_LIMIT): string {
  if (text.length <= limit) return text;
  return `${text.slice(0, limit)}\n\n[... ${text.length - limit} more characters truncated]`;
}

function serializeMessage(message: AgentMessage): string[] {
  if (typeof message !== "object" || message === null || !("role" in message)) {
    return [`[Unknown]: ${truncateForSummary(safeJson(message))}`];
  }
  switch (message.role) {
    case "user":
      return [`[User]: ${contentText(message.content)}`];
    case "assistant":
      return serializeAssistant(message);
    case "toolResult":
      return [`[Tool result]: ${truncateForSummary(contentText(message.content))}`];
    default:
      return [serializeOther(message)];
  }
}

function serializeAssistant(message: AssistantMessage): string[] {
  const thinking: string[] = [];
  const text: string[] = [];
  const toolCalls: string[] = [];
  for (const block of message.content) {
    if (block.type === "thinking") thinking.push(block.thinking);
    else if (block.type === "text") text.push(block.text);
    else if (block.type === "toolCall") toolCalls.push(formatToolCall(block));
  }
  const parts: string[] = [];
  if (thinking.length > 0) parts.push(`[Assistant thinking]: ${thinking.join("\n")}`);
  if (text.length > 0) parts.push(`[Assistant]: ${text.join("\n")}`);
  if (toolCalls.length > 0) parts.push(`[Assistant tool calls]: ${toolCalls.join("; ")}`);
  return parts;
}

/** `name(key=value, …)` with each value as JSON, cut like tool output (a `write` carries whole files). */
function formatToolCall(call: ToolCall): string {
  const entries = isRecord(call.arguments) ? Object.entries(call.arguments) : [];
  const argumentsText = entries.map(([key, value]) => `${key}=${truncateForSummary(safeJson(value))}`);
  return `${call.name}(${argumentsText.join(", ")})`;
}

/** Bash executions as `$ command` plus output; anything else by its text content or its JSON. */
function serializeOther(message: Record<string, unknown>): string {
  if (message.role === "bashExecution") {
    const command = typeof message.command === "string" ? message.command : "";
    const output = typeof message.output === "string" ? message.output : "";
    const exit =
      typeof message.exitCode === "number" && message.exitCode !== 0 ? ` (exit ${message.exitCode})` : "";
    return `[Bash]: $ ${command}${exit}\n${truncateForSummary(output)}`;
  }
  const text = "content" in message ? contentText(message.content) : "";
  return `[${String(message.role)}]: ${truncateForSummary(text.length > 0 ? text : safeJson(message))}`;
}

/** The text of string or block content; images and unknown blocks become placeholders. */
function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((block: unknown) => {
      if (isRecord(block) && block.type === "text" && typeof block.text === "string") return block.text;
      if (isRecord(block) && block.type === "image") return "[image]";
      return "";
    })
    .filter((text) => text.length > 0)
    .join("\n");
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}
