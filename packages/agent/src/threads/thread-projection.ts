/**
 * Honouring `contextProjection` on a provider that keeps the conversation on its server (OpenAI
 * Responses with `previous_response_id`). Under `thread_bootstrap` the assembled context is sent
 * once per epoch; later calls send only the messages added since the last reply and name that
 * reply as `previous_response_id`. Everything else (`per_turn`, no projection, another API) is
 * projected every call, unchanged.
 */

import type { AgentMessage, AssistantMessage, ContextEngineProjection } from "@clew/core";
import type { Api, Model } from "@mariozechner/pi-ai";
import type { PayloadHook } from "../providers/payload-hooks.js";
import type { CallModel } from "../runner/model-step.js";
import {
  bootstrapPayload,
  continuationPayload,
  isResponsesPayload,
  newInputItems,
  replayProducesItems,
} from "./responses-input.js";
import { resetThreadState, type ThreadState } from "./thread-state.js";

/** APIs whose server keeps a thread that `previous_response_id` continues. */
export const THREAD_PROJECTION_APIS: readonly string[] = ["openai-responses"];

export type { PayloadHook };

/** The options of a `CallModel`, plus the projection of the context this call sends. */
export type ThreadCallOptions = Parameters<CallModel>[1] & {
  /** The engine's projection for this call; when absent, `projection()` is asked. */
  contextProjection?: ContextEngineProjection;
};

/**
 * The model call underneath: pi-ai's `streamSimple` (or `callModel`) that hands `onPayload` to
 * pi-ai unchanged, so the request body can be replaced before it is sent.
 */
export type ThreadBaseCallModel = (
  context: Parameters<CallModel>[0],
  options: Parameters<CallModel>[1] & { onPayload?: PayloadHook },
) => Promise<AssistantMessage>;

export interface ThreadProjectingCallModelOptions {
  base: ThreadBaseCallModel;
  /** This session's thread; the wrapper updates it after every call. */
  state: ThreadState;
  /** The projection of the current call when the call options do not carry one. */
  projection?: () => ContextEngineProjection | undefined;
}

interface ThreadPlan {
  kind: "bootstrap" | "continuation";
  /** Bootstrap: messages sent; continuation: messages added after the previous reply. */
  messageCount: number;
  epoch: string | undefined;
  threadKey: string;
}

/**
 * Wraps `base` into a `CallModel` that keeps `state`'s server thread. A thread call (projection
 * `thread_bootstrap`, model API in `THREAD_PROJECTION_APIS`) bootstraps when there is no thread,
 * the epoch, system prompt or model changed, or the context no longer continues the last reply:
 * then the whole context is sent without `previous_response_id`. Otherwise only the new input
 * items are sent, chained to `state.lastResponseId`. Thread calls ask the server to store the
 * response (`store: true`); other calls are passed through byte for byte and forget the thread.
 *
 * Never throws on its own. A reply with `stopReason` `error`/`aborted`, without `responseId`, or a
 * `base` that throws resets the thread, so a lost server thread ("previous_response_id not
 * found") costs one failed call and the next call bootstraps. Must never send a partial input
 * that does not continue the server thread exactly: when in doubt it bootstraps.
 */
export function createThreadProjectingCallModel(
  options: ThreadProjectingCallModelOptions,
): (context: Parameters<CallModel>[0], callOptions: ThreadCallOptions) => Promise<AssistantMessage> {
  const { state } = options;
  return async (context, callOptions) => {
    const { contextProjection, ...baseOptions } = callOptions;
    const projection = contextProjection ?? options.projection?.();
    if (projection?.mode !== "thread_bootstrap") {
      resetThreadState(state);
      return options.base(context, baseOptions);
    }
    let plan: ThreadPlan | undefined;
    const onPayload: PayloadHook = (payload, model) => {
      if (!THREAD_PROJECTION_APIS.includes(model.api) || !isResponsesPayload(payload)) return undefined;
      const decided = planThreadCall(state, projection, context, model);
      plan = decided;
      if (decided.kind === "continuation" && state.lastResponseId !== undefined) {
        const newMessages = context.messages.slice(context.messages.length - decided.messageCount);
        const items = newInputItems(payload, newMessages);
        if (items !== undefined) return continuationPayload(payload, state.lastResponseId, items);
        plan = { ...decided, kind: "bootstrap", messageCount: context.messages.length };
      }
      return bootstrapPayload(payload);
    };
    let reply: AssistantMessage;
    try {
      reply = await options.base(context, { ...baseOptions, onPayload });
    } catch (error) {
      resetThreadState(state);
      throw error;
    }
    recordReply(state, plan, reply, context.systemPrompt);
    return reply;
  };
}

/** Bootstrap or continuation, decided from the state and the context alone. */
function planThreadCall(
  state: ThreadState,
  projection: ContextEngineProjection,
  context: { systemPrompt: string; messages: readonly AgentMessage[] },
  model: Model<Api>,
): ThreadPlan {
  const threadKey = `${model.provider}|${model.baseUrl}|${model.id}`;
  const bootstrap: ThreadPlan = {
    kind: "bootstrap",
    messageCount: context.messages.length,
    epoch: projection.epoch,
    threadKey,
  };
  const sameThread =
    state.lastResponseId !== undefined &&
    state.epoch === projection.epoch &&
    state.threadKey === threadKey &&
    state.systemPrompt === context.systemPrompt;
  if (!sameThread) return bootstrap;
  // Anchored on the last reply rather than on a message count: under thread_bootstrap an engine may
  // assemble the older history differently each call, and the server thread already holds it.
  const anchor = context.messages.findLastIndex(
    (message) =>
      (message as { role?: unknown }).role === "assistant" &&
      (message as AssistantMessage).responseId === state.lastResponseId,
  );
  if (anchor < 0) return bootstrap;
  return { ...bootstrap, kind: "continuation", messageCount: context.messages.length - anchor - 1 };
}

function recordReply(
  state: ThreadState,
  plan: ThreadPlan | undefined,
  reply: AssistantMessage,
  systemPrompt: string,
): void {
  const usable =
    plan !== undefined &&
    reply.stopReason !== "error" &&
    reply.stopReason !== "aborted" &&
    reply.responseId !== undefined &&
    replayProducesItems(reply);
  if (!usable || plan === undefined) {
    resetThreadState(state);
    return;
  }
  const before = plan.kind === "bootstrap" ? 0 : state.serverMessageCount;
  state.epoch = plan.epoch;
  state.lastResponseId = reply.responseId;
  state.serverMessageCount = before + plan.messageCount + 1;
  state.systemPrompt = systemPrompt;
  state.threadKey = plan.threadKey;
}
