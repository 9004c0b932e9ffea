/**
 * Prompt-cache breakpoints for Anthropic's Messages API, beside pi-ai's own (the last tool, the
 * system prompt, the last user message). Anthropic caches a prompt's prefix only where a request
 * puts a breakpoint, and a request reads a cached prefix only where one of its own breakpoints, or
 * a block at most 20 before one, ends exactly where that prefix ended.
 *
 * A context engine may put a part that changes with every request before the turn (lossless puts
 * the earlier messages matching the prompt there: `cacheBoundary`). Every prefix a turn's requests
 * cached then held that part, and the next turn, which no longer has it, found none of them: it
 * sent its whole history again at the price of a cache write. So, per session:
 * - a breakpoint right before the per-request part writes the prefix the next turn shares;
 * - a breakpoint where the previous request's such prefix ended, when this request still holds it,
 *   reads it, however many blocks the turn in between added.
 * Anthropic takes at most 4 per request. When these would make 5, the system prompt's gives way
 * (the tools' breakpoint still caches the tools, and any later breakpoint covers the system
 * prompt too); when that is not enough, the read one is left out.
 */
import { createHash } from "node:crypto";
import type { Message } from "@mariozechner/pi-ai";
import type { PayloadHook } from "../threads/thread-projection.js";

/** Anthropic's limit of breakpoints per request. */
const MAX_BREAKPOINTS = 4;
/** Blocks that cannot carry a breakpoint. */
const UNMARKABLE = new Set(["thinking", "redacted_thinking"]);

type Block = Record<string, unknown> & { type?: unknown; cache_control?: unknown };
interface PayloadMessage {
  role?: unknown;
  content?: unknown;
}

/** Breakpoints of one session's requests; keeps the end of the last stable prefix between calls. */
export class AnthropicCacheAnchors {
  /**
   * The message that ended the previous request's stable prefix: its index among the payload's
   * messages (a prefix sent again converts to the same messages, so it keeps its index) and a
   * digest of it, so a history that changed since (a compaction) is not mistaken for it.
   */
  private anchor: { index: number; digest: string } | undefined;

  /**
   * The payload hook of one request: `perRequest` is the first message of the part that changes
   * with every request (`ModelStepRequest.cacheBoundary`), undefined when there is none. Leaves
   * payloads of other APIs alone.
   */
  hook(perRequest: Message | undefined): PayloadHook {
    return (payload, model) => {
      if (model.api !== "anthropic-messages") return undefined;
      const messages = (payload as { messages?: unknown }).messages;
      if (!Array.isArray(messages)) return undefined;
      this.place(payload as Record<string, unknown>, messages as PayloadMessage[], perRequest);
      return payload;
    };
  }

  private place(
    payload: Record<string, unknown>,
    messages: PayloadMessage[],
    perRequest: Message | undefined,
  ) {
    const boundary = perRequest === undefined ? -1 : findPerRequest(messages, textOf(perRequest));
    const write = boundary > 0 ? boundary - 1 : undefined;
    const previous = this.anchor;
    this.anchor =
      write === undefined ? undefined : { index: write, digest: digestOf(messages[write] as PayloadMessage) };
    // A previous anchor elsewhere that this request still holds: the prefix the previous request
    // wrote, read here (the next step of a tool loop has it in the same place: one breakpoint).
    const read =
      previous !== undefined &&
      previous.index !== write &&
      previous.index < messages.length &&
      digestOf(messages[previous.index] as PayloadMessage) === previous.digest
        ? previous.index
        : undefined;
    const wanted = [write, read].filter(
      (index, position, all): index is number =>
        index !== undefined &&
        all.indexOf(index) === position &&
        !isMarked(messages[index] as PayloadMessage),
    );
    for (const index of wanted) {
      if (countBreakpoints(payload) >= MAX_BREAKPOINTS && !releaseSystemBreakpoint(payload)) return;
      markLastBlock(messages[index] as PayloadMessage);
    }
  }
}

/** The payload message that carries the per-request part: a user message with its text, last first. */
function findPerRequest(messages: readonly PayloadMessage[], text: string | undefined): number {
  if (text === undefined || text.length === 0) return -1;
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index] as PayloadMessage;
    if (message.role === "user" && payloadText(message) === text) return index;
  }
  return -1;
}

function textOf(message: Message): string | undefined {
  if (message.role !== "user") return undefined;
  if (typeof message.content === "string") return message.content;
  return message.content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("");
}

function payloadText(message: PayloadMessage): string | undefined {
  if (typeof message.content === "string") return message.content;
  if (!Array.isArray(message.content)) return undefined;
  return (message.content as Block[])
    .flatMap((block) => (block.type === "text" ? [String(block.text)] : []))
    .join("");
}

/** The message as the cache sees it: its role and blocks, a string as one text block, no markers. */
function digestOf(message: PayloadMessage): string {
  const blocks =
    typeof message.content === "string"
      ? [{ type: "text", text: message.content }]
      : Array.isArray(message.content)
        ? (message.content as Block[]).map(({ cache_control: _marker, ...block }) => block)
        : [];
  return createHash("sha256")
    .update(JSON.stringify({ role: message.role, blocks }))
    .digest("hex");
}

function isMarked(message: PayloadMessage): boolean {
  return Array.isArray(message.content) && (message.content as Block[]).some((block) => block.cache_control);
}

/** Puts a breakpoint on the message's last block that can carry one (a string becomes a text block). */
function markLastBlock(message: PayloadMessage): void {
  if (typeof message.content === "string") {
    message.content = [{ type: "text", text: message.content, cache_control: { type: "ephemeral" } }];
    return;
  }
  if (!Array.isArray(message.content)) return;
  const blocks = message.content as Block[];
  for (let index = blocks.length - 1; index >= 0; index--) {
    const block = blocks[index] as Block;
    if (UNMARKABLE.has(String(block.type))) continue;
    block.cache_control = { type: "ephemeral" };
    return;
  }
}

function countBreakpoints(payload: Record<string, unknown>): number {
  const lists = [
    payload.tools,
    payload.system,
    ...(payload.messages as PayloadMessage[]).map((m) => m.content),
  ];
  let count = 0;
  for (const list of lists) {
    if (Array.isArray(list)) for (const block of list as Block[]) if (block.cache_control) count += 1;
  }
  return count;
}

/** Removes the system prompt's breakpoint when the tools carry one; false when there is none to give. */
function releaseSystemBreakpoint(payload: Record<string, unknown>): boolean {
  const tools = payload.tools;
  const system = payload.system;
  if (!Array.isArray(tools) || !(tools as Block[]).some((tool) => tool.cache_control)) return false;
  if (!Array.isArray(system)) return false;
  const marked = (system as Block[]).filter((block) => block.cache_control);
  for (const block of marked) delete block.cache_control;
  return marked.length > 0;
}

/** `breakpoints` after `first` (a thread projection's hook, which only rewrites other APIs). */
export function withCacheBreakpoints(breakpoints: PayloadHook, first: PayloadHook | undefined): PayloadHook {
  if (first === undefined) return breakpoints;
  return async (payload, model) => {
    const rewritten = (await first(payload, model)) ?? payload;
    return (await breakpoints(rewritten, model)) ?? rewritten;
  };
}
