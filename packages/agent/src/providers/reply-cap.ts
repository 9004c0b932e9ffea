/**
 * How long a chat reply may be. pi-ai asks for the model's `maxTokens` (at most 32,000) whatever
 * the prompt: on a small window that asks for more than the window holds (an 8k local model got
 * `max_tokens: 8192` beside a 3k prompt), which OpenAI-compatible servers refuse outright.
 */
import {
  type AgentMessage,
  countMessagesTokens,
  PRECHECK_SAFETY_MARGIN,
  type TokenCounter,
} from "@clew/core";
import type { Message, Tool } from "@mariozechner/pi-ai";
import type { PayloadHook } from "./payload-hooks.js";

/** pi-ai's own ceiling on the default reply length. */
const PI_DEFAULT_MAX_TOKENS = 32_000;
/** A reply never gets less: a prompt that leaves less than this is an overflow for recovery. */
export const MIN_REPLY_TOKENS = 256;

export interface ReplyCapInput {
  /** The model's own output limit (`model.maxTokens`; 0 or less: unknown). */
  modelMaxTokens: number;
  /** The model's context window (not a budget cap set in config: this is what the server enforces). */
  contextWindow: number;
  systemPrompt: string;
  messages: readonly Message[];
  tools: readonly Tool[];
  counter: TokenCounter;
}

/**
 * The reply cap to send, or undefined when pi-ai's default already fits beside the prompt (the
 * request then stays exactly as pi-ai builds it). The prompt is estimated with the overflow
 * check's margin, so an estimate that runs low still leaves the server room.
 */
export function replyTokenCap(input: ReplyCapInput): number | undefined {
  const piDefault =
    input.modelMaxTokens > 0 ? Math.min(input.modelMaxTokens, PI_DEFAULT_MAX_TOKENS) : PI_DEFAULT_MAX_TOKENS;
  const promptTokens =
    input.counter.countText(input.systemPrompt) +
    countMessagesTokens(input.counter, input.messages as unknown as AgentMessage[]) +
    (input.tools.length === 0 ? 0 : input.counter.countText(JSON.stringify(input.tools)));
  const room = input.contextWindow - Math.ceil(promptTokens * PRECHECK_SAFETY_MARGIN);
  if (room >= piDefault) return undefined;
  return Math.max(MIN_REPLY_TOKENS, room);
}

/** Anthropic's smallest thinking budget. */
const MIN_THINKING_BUDGET = 1_024;

/**
 * Holds the request body to `cap` reply tokens whatever pi-ai added on top of `maxTokens`: for a
 * budget-thinking Anthropic model it asks for the cap plus the thinking budget. Clamps every
 * reply-length field pi-ai writes (`max_tokens`, `max_completion_tokens`, `max_output_tokens`,
 * Google's `generationConfig.maxOutputTokens`); Anthropic's `thinking.budget_tokens` must stay
 * below `max_tokens` and at 1,024 or more, so it is lowered, or thinking is left off for this call
 * when even 1,024 does not fit.
 */
export function capReplyInPayload(cap: number): PayloadHook {
  return (payload) => {
    if (typeof payload !== "object" || payload === null) return undefined;
    const body = payload as Record<string, unknown>;
    for (const field of ["max_tokens", "max_completion_tokens", "max_output_tokens"]) {
      const value = body[field];
      if (typeof value === "number" && value > cap) body[field] = cap;
    }
    const generation = body.generationConfig as Record<string, unknown> | undefined;
    if (typeof generation?.maxOutputTokens === "number" && generation.maxOutputTokens > cap)
      generation.maxOutputTokens = cap;
    const thinking = body.thinking as { type?: unknown; budget_tokens?: unknown } | undefined;
    const maxTokens = body.max_tokens;
    if (
      thinking?.type === "enabled" &&
      typeof thinking.budget_tokens === "number" &&
      typeof maxTokens === "number"
    ) {
      if (maxTokens - 1 < MIN_THINKING_BUDGET) body.thinking = { type: "disabled" };
      else if (thinking.budget_tokens >= maxTokens) thinking.budget_tokens = maxTokens - 1;
    }
    return body;
  };
}
