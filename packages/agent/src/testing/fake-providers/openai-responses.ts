/**
 * OpenAI Responses streaming (`POST /responses` with `stream: true`): named SSE events with a
 * `sequence_number` — `response.created`, per output item `response.output_item.added`, the item's
 * deltas (`response.content_part.added` + `response.output_text.delta`, or
 * `response.function_call_arguments.delta`/`.done`), `response.output_item.done`, and finally
 * `response.completed` carrying the whole response with `usage`.
 */
import { openAIErrorBody } from "./openai-completions.js";
import { jsonFrame, jsonPieces, textPieces, unixSeconds, usageOf } from "./reply-parts.js";
import type { FakeReply, IdSource, ProtocolWriter, RecordedRequest, SseFrame } from "./types.js";

export const openAIResponsesWriter: ProtocolWriter = {
  endpoint: "/responses",
  basePath: "/v1",
  frames: responseFrames,
  overflowError: () => ({
    status: 400,
    body: {
      error: {
        message:
          "Your input exceeds the context window of this model. Please adjust your input and try again.",
        type: "invalid_request_error",
        param: "input",
        code: "context_length_exceeded",
      },
    },
  }),
  error: (status, message) => ({ status, body: openAIErrorBody(status, message) }),
};

/** Collects events and numbers them in order, as the API does. */
class EventList {
  readonly frames: SseFrame[] = [];

  push(type: string, fields: Record<string, unknown>): void {
    this.frames.push(jsonFrame({ type, sequence_number: this.frames.length, ...fields }, type));
  }
}

function responseFrames(reply: FakeReply, request: RecordedRequest, ids: IdSource): SseFrame[] {
  const events = new EventList();
  const response = {
    id: ids.next("resp"),
    object: "response",
    created_at: unixSeconds(),
    model: ids.model(request),
    previous_response_id: request.previousResponseId ?? null,
  };
  events.push("response.created", {
    response: { ...response, status: "in_progress", output: [], usage: null },
  });
  events.push("response.in_progress", {
    response: { ...response, status: "in_progress", output: [], usage: null },
  });

  const output: unknown[] = [];
  if (reply.text !== undefined && reply.text.length > 0) {
    output.push(streamMessageItem(events, reply.text, output.length, ids));
  }
  for (const call of reply.toolCalls ?? []) {
    output.push(streamFunctionCallItem(events, call, output.length, ids));
  }
  events.push("response.completed", {
    response: { ...response, status: "completed", output, usage: responseUsage(reply) },
  });
  return events.frames;
}

function streamMessageItem(events: EventList, text: string, outputIndex: number, ids: IdSource): unknown {
  const itemId = ids.next("msg");
  const base = { id: itemId, type: "message", role: "assistant" };
  const location = { item_id: itemId, output_index: outputIndex, content_index: 0 };
  events.push("response.output_item.added", {
    output_index: outputIndex,
    item: { ...base, status: "in_progress", content: [] },
  });
  events.push("response.content_part.added", {
    ...location,
    part: { type: "output_text", text: "", annotations: [] },
  });
  for (const piece of textPieces(text))
    events.push("response.output_text.delta", { ...location, delta: piece });
  const part = { type: "output_text", text, annotations: [] };
  events.push("response.output_text.done", { ...location, text });
  events.push("response.content_part.done", { ...location, part });
  const item = { ...base, status: "completed", content: [part] };
  events.push("response.output_item.done", { output_index: outputIndex, item });
  return item;
}

function streamFunctionCallItem(
  events: EventList,
  call: { id?: string; name: string; arguments: Record<string, unknown> },
  outputIndex: number,
  ids: IdSource,
): unknown {
  const itemId = ids.next("fc");
  const base = { id: itemId, type: "function_call", call_id: call.id ?? ids.next("call"), name: call.name };
  const location = { item_id: itemId, output_index: outputIndex };
  events.push("response.output_item.added", {
    output_index: outputIndex,
    item: { ...base, status: "in_progress", arguments: "" },
  });
  for (const piece of jsonPieces(call.arguments)) {
    events.push("response.function_call_arguments.delta", { ...location, delta: piece });
  }
  const argumentsText = JSON.stringify(call.arguments);
  events.push("response.function_call_arguments.done", { ...location, arguments: argumentsText });
  const item = { ...base, status: "completed", arguments: argumentsText };
  events.push("response.output_item.done", { output_index: outputIndex, item });
  return item;
}

/** The Responses API counts cached tokens inside `input_tokens`. */
function responseUsage(reply: FakeReply): unknown {
  const usage = usageOf(reply);
  const inputTokens = usage.input + usage.cacheRead;
  return {
    input_tokens: inputTokens,
    input_tokens_details: { cached_tokens: usage.cacheRead },
    output_tokens: usage.output,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: inputTokens + usage.output,
  };
}
