/** A thread base call over the real pi-ai + OpenAI SDK, pointed at a fake provider. */

import type { FakeProvider, RecordedRequest } from "@clew/agent/testing";
import type { AssistantMessage } from "@clew/core";
import { type Context, type Message, streamSimple } from "@mariozechner/pi-ai";
import { NO_API_KEY } from "../../src/providers/call-model.js";
import { type ResolvedModel, resolveModel } from "../../src/providers/resolve-model.js";
import type { ThreadBaseCallModel } from "../../src/threads/thread-projection.js";

export function resolveFakeModel(fake: FakeProvider): ResolvedModel {
  return resolveModel(
    {
      models: {
        providers: {
          fake: { api: fake.protocol, baseUrl: fake.baseUrl, models: [{ id: "fake-model", maxTokens: 256 }] },
        },
      },
      agents: { defaults: { model: "fake/fake-model" } },
    },
    { agentId: "main", purpose: "chat", env: {} },
  );
}

/** What `callModel` does, with `onPayload` handed to pi-ai (no SDK retries, so errors show at once). */
export function piBase(resolved: ResolvedModel): ThreadBaseCallModel {
  return async (context, options) => {
    const piContext: Context = { systemPrompt: context.systemPrompt, messages: context.messages };
    if (context.tools.length > 0) piContext.tools = context.tools;
    const stream = streamSimple(resolved.model, piContext, {
      apiKey: NO_API_KEY,
      maxRetries: 0,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      ...(options.onPayload === undefined ? {} : { onPayload: options.onPayload }),
    });
    return (await stream.result()) as AssistantMessage;
  };
}

export function user(text: string): Message {
  return { role: "user", content: text, timestamp: 1 };
}

export function toolResult(toolCallId: string, text: string): Message {
  return {
    role: "toolResult",
    toolCallId,
    toolName: "read_file",
    content: [{ type: "text", text }],
    isError: false,
    timestamp: 3,
  };
}

export function bodyOf(request: RecordedRequest | undefined): Record<string, unknown> {
  return (request?.body ?? {}) as Record<string, unknown>;
}

/** The input items of a recorded request, reduced to what tells them apart. */
export function inputSummary(request: RecordedRequest | undefined): string[] {
  const input = (bodyOf(request).input ?? []) as Array<Record<string, unknown>>;
  return input.map((item) => {
    if (item.type === "function_call_output") return `tool-output:${String(item.call_id)}`;
    if (item.type === "function_call") return `tool-call:${String(item.call_id)}`;
    if (item.type === "message") return `assistant:${textOf(item.content)}`;
    return `${String(item.role)}:${textOf(item.content)}`;
  });
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((part) => String((part as { text?: unknown }).text ?? "")).join("");
}
