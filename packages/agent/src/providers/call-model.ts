import { abortReason, emptyUsage, ModelCallError } from "@clew/core";
/**
 * One model call through pi-ai: `callModel` streams with `streamSimple`, forwards every event and
 * returns the final assistant message. Provider failures stay data, as pi-ai encodes them: the
 * message ends with `stopReason` `"error"` (with `errorMessage`) or `"aborted"`.
 */
import {
  type AssistantMessage,
  type AssistantMessageEvent,
  type Context,
  isContextOverflow,
  type Message,
  type SimpleStreamOptions,
  streamSimple,
  type ThinkingLevel,
  type Tool,
} from "@mariozechner/pi-ai";
import type { ResolvedModel } from "./resolve-model.js";

/**
 * Sent as the key to servers that need none (loopback). pi-ai's providers refuse to start without
 * a key and would otherwise fall back to the real `OPENAI_API_KEY` of `process.env`, sending it to
 * a local server.
 */
export const NO_API_KEY = "clew-no-key";

export interface ModelRequest {
  systemPrompt: string;
  messages: Message[];
  tools: Tool[];
}

export interface CallModelOptions {
  signal?: AbortSignal;
  /** Every pi stream event, in order. A listener that throws is ignored. */
  onEvent?: (event: AssistantMessageEvent) => void;
  reasoning?: ThinkingLevel;
  /** Lets providers route or cache by session. */
  sessionId?: string;
  /** Output token cap; default pi-ai's (the model's `maxTokens`, at most 32,000). */
  maxTokens?: number;
  /** SDK retries on 429/5xx and connection errors; default the SDK's (2). */
  maxRetries?: number;
  /** Stamps the error message built when the call cannot start. Default `Date.now`. */
  now?: () => number;
  /** Inspects or replaces the provider payload before it is sent (server-thread projection). */
  onPayload?: SimpleStreamOptions["onPayload"];
}

/**
 * Calls the model and resolves with its final message. Never rejects for a provider problem:
 * HTTP errors, overflow, a broken stream and even a failure to start the call (pi-ai throws for
 * a missing key) resolve as a message with `stopReason: "error"`; an abort through `signal`
 * resolves with `stopReason: "aborted"`. Usage and cost are pi-ai's (cost from `model.cost`).
 */
export async function callModel(
  resolved: ResolvedModel,
  request: ModelRequest,
  options: CallModelOptions = {},
): Promise<AssistantMessage> {
  const context: Context = { systemPrompt: request.systemPrompt, messages: request.messages };
  if (request.tools.length > 0) context.tools = request.tools;
  const link = linkedSignal(options.signal);
  try {
    let stream: ReturnType<typeof streamSimple>;
    try {
      stream = streamSimple(resolved.model, context, streamOptions(resolved, options, link.signal));
    } catch (error) {
      return failedMessage(resolved, error, options);
    }
    for await (const event of stream) emit(options.onEvent, event);
    return await stream.result();
  } finally {
    link.release();
  }
}

/**
 * A signal of the call's own that follows `signal`, unlinked once the call is over. The provider
 * SDKs add an abort listener to the signal they are given and never take it off: given a turn's
 * signal, every step of a tool loop left one more on it (Node warned after ten).
 */
function linkedSignal(signal: AbortSignal | undefined): { signal?: AbortSignal; release: () => void } {
  if (signal === undefined) return { release: () => {} };
  const controller = new AbortController();
  if (signal.aborted) {
    controller.abort(signal.reason);
    return { signal: controller.signal, release: () => {} };
  }
  const follow = () => controller.abort(signal.reason);
  signal.addEventListener("abort", follow, { once: true });
  return { signal: controller.signal, release: () => signal.removeEventListener("abort", follow) };
}

/**
 * True when `message` is a context-overflow failure (pi-ai's `isContextOverflow`: the provider's
 * overflow error, or a reply whose input exceeded `contextWindow`).
 */
export function isOverflowMessage(message: AssistantMessage, contextWindow?: number): boolean {
  return isContextOverflow(message, contextWindow);
}

/**
 * The text of a one-shot reply (its text blocks joined; possibly empty). Throws `signal.reason`
 * when the call was aborted through `signal`, and `ModelCallError` when the model answered with an
 * error or stopped as aborted (`isOverflow` set for a context overflow).
 */
export function replyText(message: AssistantMessage, resolved: ResolvedModel, signal?: AbortSignal): string {
  if (message.stopReason === "aborted" && signal?.aborted) throw abortReason(signal);
  if (message.stopReason === "error" || message.stopReason === "aborted") {
    throw new ModelCallError(
      resolved.ref,
      message.errorMessage ?? `the model stopped with "${message.stopReason}"`,
      isOverflowMessage(message, resolved.contextWindow),
    );
  }
  return message.content
    .filter((block) => block.type === "text")
    .map((block) => block.text)
    .join("");
}

function streamOptions(
  resolved: ResolvedModel,
  options: CallModelOptions,
  signal: AbortSignal | undefined,
): SimpleStreamOptions {
  const piOptions: SimpleStreamOptions = { apiKey: resolved.apiKey ?? NO_API_KEY };
  if (options.onPayload !== undefined) piOptions.onPayload = options.onPayload;
  if (signal !== undefined) piOptions.signal = signal;
  if (options.reasoning !== undefined) piOptions.reasoning = options.reasoning;
  if (options.sessionId !== undefined) piOptions.sessionId = options.sessionId;
  if (options.maxTokens !== undefined) piOptions.maxTokens = options.maxTokens;
  if (options.maxRetries !== undefined) piOptions.maxRetries = options.maxRetries;
  return piOptions;
}

function emit(listener: CallModelOptions["onEvent"], event: AssistantMessageEvent): void {
  if (listener === undefined) return;
  try {
    listener(event);
  } catch {
    // Events are data: a failing listener must not break the call.
  }
}

function failedMessage(resolved: ResolvedModel, error: unknown, options: CallModelOptions): AssistantMessage {
  const aborted = options.signal?.aborted === true;
  const message: AssistantMessage = {
    role: "assistant",
    content: [],
    api: resolved.model.api,
    provider: resolved.model.provider,
    model: resolved.model.id,
    usage: emptyUsage(),
    stopReason: aborted ? "aborted" : "error",
    errorMessage: error instanceof Error ? error.message : String(error),
    timestamp: (options.now ?? Date.now)(),
  };
  emit(options.onEvent, { type: "error", reason: message.stopReason as "aborted" | "error", error: message });
  return message;
}
