/**
 * Anthropic Messages streaming (`POST /v1/messages` with `stream: true`): named SSE events
 * `message_start` (with input usage), a `ping`, per block `content_block_start` /
 * `content_block_delta` (`text_delta` or `input_json_delta`) / `content_block_stop`, then
 * `message_delta` (stop reason and output tokens) and `message_stop`.
 */
import { jsonFrame, jsonPieces, textPieces, usageOf } from "./reply-parts.js";
import type {
  FakeReply,
  FakeToolCall,
  IdSource,
  ProtocolWriter,
  RecordedRequest,
  SseFrame,
} from "./types.js";

export const anthropicMessagesWriter: ProtocolWriter = {
  endpoint: "/v1/messages",
  basePath: "",
  frames: messageFrames,
  overflowError: () => ({
    status: 400,
    body: {
      type: "error",
      error: { type: "invalid_request_error", message: "prompt is too long: 210000 tokens > 200000 maximum" },
    },
  }),
  error: (status, message) => ({
    status,
    body: { type: "error", error: { type: status >= 500 ? "api_error" : "invalid_request_error", message } },
  }),
};

function event(type: string, fields: Record<string, unknown> = {}): SseFrame {
  return jsonFrame({ type, ...fields }, type);
}

function messageFrames(reply: FakeReply, request: RecordedRequest, ids: IdSource): SseFrame[] {
  const usage = usageOf(reply);
  const frames: SseFrame[] = [
    event("message_start", {
      message: {
        id: ids.next("msg"),
        type: "message",
        role: "assistant",
        model: ids.model(request),
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: {
          input_tokens: usage.input,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: usage.cacheRead,
          output_tokens: 1,
        },
      },
    }),
    event("ping"),
  ];
  let index = 0;
  if (reply.text !== undefined && reply.text.length > 0) frames.push(...textBlock(index++, reply.text));
  for (const call of reply.toolCalls ?? []) frames.push(...toolUseBlock(index++, call, ids));
  const stopReason = (reply.toolCalls ?? []).length > 0 ? "tool_use" : "end_turn";
  frames.push(
    event("message_delta", {
      delta: { stop_reason: stopReason, stop_sequence: null },
      usage: { output_tokens: usage.output },
    }),
    event("message_stop"),
  );
  return frames;
}

function textBlock(index: number, text: string): SseFrame[] {
  return [
    event("content_block_start", { index, content_block: { type: "text", text: "" } }),
    ...textPieces(text).map((piece) =>
      event("content_block_delta", { index, delta: { type: "text_delta", text: piece } }),
    ),
    event("content_block_stop", { index }),
  ];
}

function toolUseBlock(index: number, call: FakeToolCall, ids: IdSource): SseFrame[] {
  const id = call.id ?? ids.next("toolu");
  return [
    event("content_block_start", {
      index,
      content_block: { type: "tool_use", id, name: call.name, input: {} },
    }),
    ...jsonPieces(call.arguments).map((piece) =>
      event("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: piece } }),
    ),
    event("content_block_stop", { index }),
  ];
}
