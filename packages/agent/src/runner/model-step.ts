import {
  type AgentMessage,
  type AssistantMessage,
  type ContextEngineProjection,
  ContextOverflowError,
  describeError,
  type ModelStepFunction,
  type ToolResultMessage,
} from "@clew/core";
import type { AssistantMessageEvent, Message, Tool } from "@mariozechner/pi-ai";
import { executeToolCall } from "../tools/execute-tool-call.js";
import type { ToolRegistry } from "../tools/tool.js";
import type { TurnEvent, TurnEventListener } from "./events.js";

/** One model call as the provider layer offers it (pi-ai underneath). */
export type CallModel = (
  context: { systemPrompt: string; messages: Message[]; tools: Tool[] },
  options: {
    signal?: AbortSignal;
    onEvent?: (event: AssistantMessageEvent) => void;
    contextProjection?: ContextEngineProjection;
    /** The first message of the part that changes with every request (see `ModelStepRequest.cacheBoundary`). */
    perRequestMessage?: Message;
  },
) => Promise<AssistantMessage>;

export interface ModelStepOptions {
  callModel: CallModel;
  /** Says whether a provider error message means the prompt was too long. */
  isOverflow: (message: AssistantMessage) => boolean;
  tools: ToolRegistry;
  onEvent?: TurnEventListener;
  now?: () => number;
}

/**
 * One step of the tool loop as the host runs it: a streamed model call, then every tool call the
 * model asked for, in order. Errors stay data: a provider error comes back as the assistant
 * message with `stopReason: "error"`, a failing tool as an `isError` result. Only a provider
 * overflow throws (`ContextOverflowError`), so the host can compact and retry. Every tool call
 * gets a result, also after an abort, so the transcript never holds a call without its result.
 */
export function createModelStep(options: ModelStepOptions): ModelStepFunction {
  const emit = (event: TurnEvent) => {
    try {
      options.onEvent?.(event);
    } catch {
      // A listener's failure is its own; the run goes on.
    }
  };
  return async (request) => {
    const callOptions: Parameters<CallModel>[1] = { onEvent: (event) => forwardStreamEvent(event, emit) };
    if (request.signal !== undefined) callOptions.signal = request.signal;
    if (request.contextProjection !== undefined) callOptions.contextProjection = request.contextProjection;
    const messages = toProviderMessages(request.messages);
    const perRequest =
      request.cacheBoundary === undefined ? undefined : request.messages[request.cacheBoundary];
    // Only a message the provider is sent (the filter keeps the very objects).
    if (perRequest !== undefined && messages.includes(perRequest as Message))
      callOptions.perRequestMessage = perRequest as Message;
    const assistant = await options.callModel(
      { systemPrompt: request.systemPrompt, messages, tools: toolSchemas(options.tools) },
      callOptions,
    );
    if (assistant.stopReason === "error" && options.isOverflow(assistant)) {
      throw new ContextOverflowError(
        `The provider says the prompt is too long: ${assistant.errorMessage ?? "context overflow"}`,
        {
          ...overflowTokens(assistant.errorMessage),
        },
      );
    }
    emit({ type: "message-end", message: assistant });
    const calls = assistant.content.filter((block) => block.type === "toolCall");
    if (calls.length === 0 || assistant.stopReason === "error") return { messages: [assistant], done: true };
    const results: ToolResultMessage[] = [];
    for (const call of calls) {
      emit({ type: "tool-start", toolCallId: call.id, name: call.name, arguments: call.arguments });
      const result = await runToolCall(options, call, request.signal);
      results.push(result);
      emit({ type: "tool-end", toolCallId: call.id, name: call.name, result, isError: result.isError });
    }
    const aborted = request.signal?.aborted === true || assistant.stopReason === "aborted";
    return { messages: [assistant, ...results], done: aborted };
  };
}

async function runToolCall(
  options: ModelStepOptions,
  call: { id: string; name: string; arguments: Record<string, unknown> },
  signal: AbortSignal | undefined,
): Promise<ToolResultMessage> {
  try {
    return await executeToolCall(options.tools.get(call.name), call, signal, {
      now: options.now ?? Date.now,
      availableTools: [...options.tools.names()],
    });
  } catch (error) {
    return {
      role: "toolResult",
      toolCallId: call.id,
      toolName: call.name,
      content: [{ type: "text", text: `Tool ${call.name} failed: ${describeError(error)}` }],
      isError: true,
      timestamp: (options.now ?? Date.now)(),
    };
  }
}

function forwardStreamEvent(event: AssistantMessageEvent, emit: (event: TurnEvent) => void): void {
  if (event.type === "text_delta") emit({ type: "text-delta", delta: event.delta });
  else if (event.type === "thinking_delta") emit({ type: "thinking-delta", delta: event.delta });
}

/** The pipeline already turned custom messages into model roles; anything else is left out. */
function toProviderMessages(messages: readonly AgentMessage[]): Message[] {
  return messages.filter((message): message is Message => {
    const role = (message as { role?: unknown }).role;
    return role === "user" || role === "assistant" || role === "toolResult";
  });
}

function toolSchemas(tools: ToolRegistry): Tool[] {
  return tools
    .list()
    .map((tool) => ({ name: tool.name, description: tool.description, parameters: tool.parameters }));
}

/**
 * The prompt size a provider reported, when its overflow error names one: the largest token count
 * in the text ("… 128000 tokens … resulted in 130000 tokens" → 130000). Only a hint for the
 * compaction's `currentTokenCount`; nothing depends on it being found.
 */
function overflowTokens(errorMessage: string | undefined): { estimatedTokens?: number } {
  let largest = 0;
  for (const match of (errorMessage ?? "").matchAll(/(\d[\d,]*)\s*tokens/gi)) {
    largest = Math.max(largest, Number((match[1] ?? "").replace(/,/g, "")) || 0);
  }
  return largest > 0 ? { estimatedTokens: largest } : {};
}
