/**
 * OpenAI Chat Completions streaming (`POST /chat/completions` with `stream: true`): `data:` chunks
 * of `chat.completion.chunk`, text in `choices[0].delta.content`, tool calls in
 * `choices[0].delta.tool_calls` (first piece with index, id and name, then argument fragments),
 * a chunk with `finish_reason`, a usage chunk when `stream_options.include_usage`, then `[DONE]`.
 */
import { jsonFrame, jsonPieces, textPieces, unixSeconds, usageOf } from "./reply-parts.js";
import type { FakeReply, IdSource, ProtocolWriter, RecordedRequest, SseFrame } from "./types.js";

export const openAICompletionsWriter: ProtocolWriter = {
  endpoint: "/chat/completions",
  basePath: "/v1",
  frames: completionFrames,
  overflowError: () => ({
    status: 400,
    body: {
      error: {
        message:
          "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.",
        type: "invalid_request_error",
        param: "messages",
        code: "context_length_exceeded",
      },
    },
  }),
  error: (status, message) => ({ status, body: openAIErrorBody(status, message) }),
};

/** OpenAI's error envelope, shared with the Responses API. */
export function openAIErrorBody(status: number, message: string): unknown {
  const type = status >= 500 ? "server_error" : "invalid_request_error";
  return { error: { message, type, param: null, code: null } };
}

function completionFrames(reply: FakeReply, request: RecordedRequest, ids: IdSource): SseFrame[] {
  const id = ids.next("chatcmpl");
  const created = unixSeconds();
  const model = ids.model(request);
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
    jsonFrame({ id, object: "chat.completion.chunk", created, model, choices, ...extra });
  const delta = (value: Record<string, unknown>, finishReason: string | null = null) =>
    chunk([{ index: 0, delta: value, logprobs: null, finish_reason: finishReason }]);

  const frames = [delta({ role: "assistant", content: "" })];
  for (const piece of textPieces(reply.text ?? "")) frames.push(delta({ content: piece }));
  (reply.toolCalls ?? []).forEach((call, index) => {
    const callId = call.id ?? ids.next("call");
    frames.push(
      delta({
        tool_calls: [{ index, id: callId, type: "function", function: { name: call.name, arguments: "" } }],
      }),
    );
    for (const piece of jsonPieces(call.arguments)) {
      frames.push(delta({ tool_calls: [{ index, function: { arguments: piece } }] }));
    }
  });
  const finishReason = (reply.toolCalls ?? []).length > 0 ? "tool_calls" : "stop";
  frames.push(delta({}, finishReason));
  if (includesUsage(request)) frames.push(chunk([], { usage: completionUsage(reply) }));
  frames.push({ data: "[DONE]" });
  return frames;
}

function includesUsage(request: RecordedRequest): boolean {
  const body = request.body as { stream_options?: { include_usage?: unknown } } | undefined;
  return body?.stream_options?.include_usage === true;
}

/** OpenAI counts cached tokens inside `prompt_tokens`. */
function completionUsage(reply: FakeReply): unknown {
  const usage = usageOf(reply);
  const promptTokens = usage.input + usage.cacheRead;
  return {
    prompt_tokens: promptTokens,
    completion_tokens: usage.output,
    total_tokens: promptTokens + usage.output,
    prompt_tokens_details: { cached_tokens: usage.cacheRead },
    completion_tokens_details: { reasoning_tokens: 0 },
  };
}
