/**
 * Tool-call id rewriting for providers with an id rule. Transcripts can hold ids from another
 * provider (OpenAI Responses ids run to hundreds of characters and contain `|`), and replaying them
 * to Anthropic or Mistral fails the whole request.
 */
import { createHash } from "node:crypto";
import type { AgentMessage, AssistantMessage, ToolCall } from "../messages.js";
import type { ToolCallIdMode } from "./transcript-policy.js";

/** Anthropic's rule, used for `strict`. */
export const STRICT_TOOL_CALL_ID = /^[A-Za-z0-9_-]{1,64}$/;
/** Mistral's rule, used for `strict9`. */
export const STRICT9_TOOL_CALL_ID = /^[A-Za-z0-9]{9}$/;

const STRICT_MAX_LENGTH = 64;
const HASH_LENGTH = 12;
const BASE62 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/** Whether `id` already satisfies the rule of `mode` (`none` accepts any string). */
export function isValidToolCallId(id: string, mode: ToolCallIdMode): boolean {
  if (mode === "strict") return STRICT_TOOL_CALL_ID.test(id);
  if (mode === "strict9") return STRICT9_TOOL_CALL_ID.test(id);
  return true;
}

/**
 * Rewrites tool-call ids to the rule of `mode` (`none` returns the messages unchanged):
 * - every assistant `toolCall` id gets an id that satisfies the rule and is unique in the transcript;
 *   an id that already satisfies it and is not taken is kept;
 * - a `toolResult` gets the id its call got (the latest earlier call with the same original id);
 *   a result with no earlier call gets an id of its own that matches no call, so it stays an orphan;
 * - ids that break the rule, or collide, become a readable prefix plus a hash of the original id.
 * Deterministic and idempotent; never mutates its input (changed messages are copies).
 */
export function sanitizeToolCallIds(messages: readonly AgentMessage[], mode: ToolCallIdMode): AgentMessage[] {
  if (mode === "none") return [...messages];
  const rewriter = new ToolCallIdRewriter(mode);
  return messages.map((message) => {
    if (message.role === "assistant") return rewriteAssistant(message, rewriter);
    if (message.role === "toolResult") {
      const toolCallId = rewriter.resultId(message.toolCallId);
      return toolCallId === message.toolCallId ? message : { ...message, toolCallId };
    }
    return message;
  });
}

function rewriteAssistant(message: AssistantMessage, rewriter: ToolCallIdRewriter): AssistantMessage {
  let changed = false;
  const content = message.content.map((block) => {
    if (block.type !== "toolCall") return block;
    const id = rewriter.callId(block.id);
    if (id === block.id) return block;
    changed = true;
    return { ...block, id } satisfies ToolCall;
  });
  return changed ? { ...message, content } : message;
}

class ToolCallIdRewriter {
  private readonly taken = new Set<string>();
  private readonly latestCallId = new Map<string, string>();

  constructor(private readonly mode: Exclude<ToolCallIdMode, "none">) {}

  callId(original: string): string {
    const assigned = this.claim(original);
    this.latestCallId.set(original, assigned);
    return assigned;
  }

  resultId(original: string): string {
    return this.latestCallId.get(original) ?? this.claim(original);
  }

  private claim(original: string): string {
    for (let attempt = 0; ; attempt++) {
      const candidate = this.candidate(original, attempt);
      if (!this.taken.has(candidate)) {
        this.taken.add(candidate);
        return candidate;
      }
    }
  }

  private candidate(original: string, attempt: number): string {
    if (attempt === 0 && isValidToolCallId(original, this.mode)) return original;
    const hash = base62Hash(attempt === 0 ? original : `${original}#${attempt}`);
    if (this.mode === "strict9") return hash.slice(0, 9);
    const readable = original.replace(/[^A-Za-z0-9_-]/g, "_").replace(/_+/g, "_");
    if (attempt === 0 && readable.length > 0 && readable.length <= STRICT_MAX_LENGTH) {
      return readable;
    }
    const prefix = readable.slice(0, STRICT_MAX_LENGTH - HASH_LENGTH - 1);
    return `${prefix.length > 0 ? prefix : "call"}_${hash.slice(0, HASH_LENGTH)}`;
  }
}

function base62Hash(text: string): string {
  const digest = createHash("sha256").update(text).digest();
  let output = "";
  for (const byte of digest) output += BASE62[byte % BASE62.length];
  return output;
}
