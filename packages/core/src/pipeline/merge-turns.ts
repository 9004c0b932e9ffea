/**
 * Turn-shape fixes for providers that insist on alternating roles. Anthropic rejects two user
 * messages in a row, Gemini two model messages in a row or a history that opens with the model.
 * Stored transcripts produce both (a steering message typed during a run, a dropped aborted turn,
 * history limiting that starts mid-conversation).
 */
import type { AgentMessage, AssistantMessage, ImageContent, TextContent, UserMessage } from "../messages.js";
import { isUnfinished, toolCallsOf } from "./repair-tool-pairing.js";

/** Text of the user message put in front of a history that starts with an assistant message. */
export const SESSION_BOOTSTRAP_TEXT = "(session bootstrap)";

export interface MergeTurnsOptions {
  mergeConsecutiveUser: boolean;
  mergeConsecutiveAssistant: boolean;
}

/**
 * Merges runs of same-role messages, as the options ask:
 * - user after user → one user message whose content is both contents as blocks (text and images
 *   kept in order); the merged message takes the later message's other fields;
 * - assistant after assistant → one message with both messages' blocks and the later message's
 *   usage, stop reason and other fields. Merged only when the earlier message makes no tool calls
 *   (its results sit between the two) and neither ended in `error`/`aborted` (providers skip those,
 *   and merging would replay their partial content under a good stop reason).
 * Never mutates its input (merged messages are new objects) and never throws.
 */
export function mergeConsecutiveTurns(
  messages: readonly AgentMessage[],
  options: MergeTurnsOptions,
): AgentMessage[] {
  const output: AgentMessage[] = [];
  for (const message of messages) {
    const previous = output.at(-1);
    const merged = previous === undefined ? undefined : mergePair(previous, message, options);
    if (merged === undefined) output.push(message);
    else output[output.length - 1] = merged;
  }
  return output;
}

/**
 * Puts a user message `(session bootstrap)` in front when the first message is an assistant
 * message; otherwise returns the messages as they are (as a new array). Never mutates its input.
 */
export function ensureUserFirst(messages: readonly AgentMessage[]): AgentMessage[] {
  const first = messages[0];
  if (first === undefined || first.role !== "assistant") return [...messages];
  const bootstrap: UserMessage = {
    role: "user",
    content: SESSION_BOOTSTRAP_TEXT,
    timestamp: first.timestamp,
  };
  return [bootstrap, ...messages];
}

function mergePair(
  previous: AgentMessage,
  message: AgentMessage,
  options: MergeTurnsOptions,
): AgentMessage | undefined {
  if (options.mergeConsecutiveUser && previous.role === "user" && message.role === "user") {
    return { ...message, content: [...userBlocks(previous), ...userBlocks(message)] };
  }
  if (options.mergeConsecutiveAssistant && previous.role === "assistant" && message.role === "assistant") {
    return canMergeAssistants(previous, message)
      ? { ...message, content: [...previous.content, ...message.content] }
      : undefined;
  }
  return undefined;
}

function canMergeAssistants(previous: AssistantMessage, message: AssistantMessage): boolean {
  return !isUnfinished(previous) && !isUnfinished(message) && toolCallsOf(previous).length === 0;
}

function userBlocks(message: UserMessage): (TextContent | ImageContent)[] {
  return typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content;
}
