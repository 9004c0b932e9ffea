/**
 * Reading and trimming the OpenAI Responses request body that pi-ai builds
 * (`openai-responses.js` `buildParams` → `convertResponsesMessages`), checked against pi-ai 0.73:
 *
 * - the system prompt is the first `input` item (`role` `system`, or `developer` for reasoning
 *   models), not `instructions`;
 * - a user message is one `{ role: "user", content }` item (none when its content array is empty);
 * - a tool result is one `{ type: "function_call_output" }` item;
 * - an assistant message is one item per thinking block with a signature (`type: "reasoning"`),
 *   per text block (`type: "message", role: "assistant"`) and per tool call
 *   (`type: "function_call"`); errored or aborted assistant messages produce nothing;
 * - `store` is `false`, which a thread cannot use: the server must keep each response so the next
 *   call can name it in `previous_response_id`.
 */
import type { AgentMessage } from "@clew/core";

/** The part of the Responses body this module reads; everything else is passed on untouched. */
export type ResponsesPayload = Record<string, unknown> & { input: unknown[] };

export function isResponsesPayload(payload: unknown): payload is ResponsesPayload {
  return (
    typeof payload === "object" && payload !== null && Array.isArray((payload as { input?: unknown }).input)
  );
}

/** The first call of a thread: everything, stored on the server, starting no earlier thread. */
export function bootstrapPayload(payload: ResponsesPayload): ResponsesPayload {
  const { previous_response_id: _ignored, ...rest } = payload;
  return { ...rest, input: payload.input, store: true };
}

/** A later call: only `newItems`, chained to the previous response. */
export function continuationPayload(
  payload: ResponsesPayload,
  previousResponseId: string,
  newItems: unknown[],
): ResponsesPayload {
  return { ...payload, input: newItems, previous_response_id: previousResponseId, store: true };
}

/**
 * The trailing `input` items that `newMessages` (the messages after the last reply on the thread)
 * became, or `undefined` when the payload does not have the expected shape: exactly as many input
 * items at the end as those messages make, preceded by an item of the previous reply. A mismatch
 * (pi-ai synthesised a tool result, a new item kind appeared) must never send a wrong slice, so the
 * caller bootstraps instead.
 */
export function newInputItems(
  payload: ResponsesPayload,
  newMessages: readonly AgentMessage[],
): unknown[] | undefined {
  const expected = expectedItemCount(newMessages);
  if (expected === undefined || expected === 0 || expected >= payload.input.length) return undefined;
  const tail = payload.input.slice(payload.input.length - expected);
  const beforeTail = payload.input[payload.input.length - expected - 1];
  if (!isAssistantOutputItem(beforeTail) || !tail.every(isInputItem)) return undefined;
  return tail;
}

/**
 * Items pi-ai makes for messages that follow the thread's last reply, or `undefined` when one of
 * them is an assistant message it would replay (then the server's thread and the context differ).
 */
function expectedItemCount(messages: readonly AgentMessage[]): number | undefined {
  let count = 0;
  for (const message of messages) {
    const role = (message as { role?: unknown }).role;
    if (role === "toolResult") count += 1;
    else if (role === "user") count += hasUserContent(message) ? 1 : 0;
    else if (role === "assistant") {
      const stopReason = (message as { stopReason?: unknown }).stopReason;
      if (stopReason !== "error" && stopReason !== "aborted") return undefined;
    }
  }
  return count;
}

function hasUserContent(message: AgentMessage): boolean {
  const content = (message as { content?: unknown }).content;
  return typeof content === "string" || (Array.isArray(content) && content.length > 0);
}

/** An item pi-ai builds from an assistant message: the server has these as a response's output. */
function isAssistantOutputItem(item: unknown): boolean {
  if (typeof item !== "object" || item === null) return false;
  const { type, role } = item as { type?: unknown; role?: unknown };
  return type === "reasoning" || type === "function_call" || (type === "message" && role === "assistant");
}

/** An item pi-ai builds from a user message or a tool result. */
function isInputItem(item: unknown): boolean {
  if (typeof item !== "object" || item === null) return false;
  const { type, role } = item as { type?: unknown; role?: unknown };
  return type === "function_call_output" || (type === undefined && role === "user");
}

/** Whether pi-ai turns `reply` into at least one input item when it is replayed. */
export function replayProducesItems(reply: { content: ReadonlyArray<{ type: string }> }): boolean {
  return reply.content.some(
    (block) =>
      block.type === "text" ||
      block.type === "toolCall" ||
      (block.type === "thinking" && Boolean((block as { thinkingSignature?: string }).thinkingSignature)),
  );
}
