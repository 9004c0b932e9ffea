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
import type { PayloadHook } from "./payload-hooks.js";

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
   * Where the latest stable prefix ended: its last message's index among the payload's messages (a
   * prefix sent again converts to the same messages, so it keeps its index) and a digest of the
   * whole prefix up to it, so a history that changed since (a compaction) is never taken for it.
   * Kept through requests without a per-request part (a memory flush, a turn with no block).
   */
  private anchor: { index: number; digest: string } | undefined;

  /**
   * The payload hook of one request: `perRequest` is the first message of the part that changes
   * with every request (`ModelStepRequest.cacheBoundary`), undefined when there is none. Leaves
   * payloads of other APIs alone, and adds nothing where pi-ai placed no breakpoint of its own
   * (caching turned off); the marker is pi-ai's own, so its lifetime (`PI_CACHE_RETENTION`) is
   * the same on every breakpoint, as Anthropic requires.
   */
  hook(perRequest: Message | undefined): PayloadHook {
    return (payload, model) => {
      if (model.api !== "anthropic-messages") return undefined;
      const body = payload as Record<string, unknown>;
      const messages = body.messages;
      const marker = markerOf(body);
      if (!Array.isArray(messages) || marker === undefined) return undefined;
      this.place(body, messages as PayloadMessage[], perRequest, marker);
      return payload;
    };
  }

  private place(
    payload: Record<string, unknown>,
    messages: PayloadMessage[],
    perRequest: Message | undefined,
    marker: unknown,
  ) {
    // A user message's content has the payload's shape: a string, or text (and image) blocks.
    const text = perRequest?.role === "user" ? payloadText(perRequest) : undefined;
    const boundary = findPerRequest(messages, text);
    const write = boundary > 0 ? boundary - 1 : undefined;
    const previous = this.anchor;
    const digests = prefixDigests(messages, [write, previous?.index]);
    if (write !== undefined) this.anchor = { index: write, digest: digests.get(write) as string };
    // The prefix the previous request wrote, when this one still holds it, read here (the next
    // step of a tool loop has it in the same place: one breakpoint).
    const read =
      previous !== undefined && previous.index !== write && digests.get(previous.index) === previous.digest
        ? previous.index
        : undefined;
    for (const index of [write, read]) {
      if (index === undefined) continue;
      const message = messages[index] as PayloadMessage;
      if (isMarked(message) || !canMark(message)) continue;
      if (countBreakpoints(payload) >= MAX_BREAKPOINTS && !releaseSystemBreakpoint(payload)) return;
      markLastBlock(message, marker);
    }
  }
}

/** pi-ai's marker on the system prompt, the last tool or the last message; undefined when none. */
function markerOf(payload: Record<string, unknown>): unknown {
  const messages = Array.isArray(payload.messages) ? (payload.messages as PayloadMessage[]) : [];
  const blocks = [
    ...(Array.isArray(payload.system) ? (payload.system as Block[]) : []),
    ...(Array.isArray(payload.tools) ? (payload.tools as Block[]) : []),
    ...messages.flatMap((message) => (Array.isArray(message.content) ? (message.content as Block[]) : [])),
  ];
  const marker = blocks.find((block) => block.cache_control !== undefined)?.cache_control;
  return marker === undefined ? undefined : structuredClone(marker);
}

/**
 * Digests of the prefixes ending at the messages `at` names (those in range): each message's role
 * and blocks (a string as one text block, markers left out), hashed in order, as the cache sees a
 * prefix. One running hash, copied where a digest is wanted: a hash per message cost 4–8 ms a
 * request at 400 messages.
 */
function prefixDigests(
  messages: readonly PayloadMessage[],
  at: ReadonlyArray<number | undefined>,
): Map<number, string> {
  const wanted = new Set(
    at.filter((index): index is number => index !== undefined && index < messages.length),
  );
  const digests = new Map<number, string>();
  const through = Math.max(-1, ...wanted);
  const hash = createHash("sha256");
  for (let index = 0; index <= through; index++) {
    const message = messages[index] as PayloadMessage;
    const blocks =
      typeof message.content === "string"
        ? [{ type: "text", text: message.content }]
        : Array.isArray(message.content)
          ? (message.content as Block[]).map(({ cache_control: _marker, ...block }) => block)
          : [];
    // JSON values delimit themselves, so the stream of them names one prefix only.
    hash.update(JSON.stringify({ role: message.role, blocks }));
    if (wanted.has(index)) digests.set(index, hash.copy().digest("hex"));
  }
  return digests;
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

function payloadText(message: PayloadMessage): string | undefined {
  if (typeof message.content === "string") return message.content;
  if (!Array.isArray(message.content)) return undefined;
  return (message.content as Block[])
    .flatMap((block) => (block.type === "text" ? [String(block.text)] : []))
    .join("");
}

function isMarked(message: PayloadMessage): boolean {
  return Array.isArray(message.content) && (message.content as Block[]).some((block) => block.cache_control);
}

/** Whether the message has a block that can carry a breakpoint (thinking blocks cannot). */
function canMark(message: PayloadMessage): boolean {
  if (typeof message.content === "string") return message.content.length > 0;
  return (
    Array.isArray(message.content) &&
    (message.content as Block[]).some((block) => !UNMARKABLE.has(String(block.type)))
  );
}

/** Puts `marker` on the message's last block that can carry it (a string becomes a text block). */
function markLastBlock(message: PayloadMessage, marker: unknown): void {
  if (typeof message.content === "string") {
    message.content = [{ type: "text", text: message.content, cache_control: structuredClone(marker) }];
    return;
  }
  const blocks = message.content as Block[];
  for (let index = blocks.length - 1; index >= 0; index--) {
    const block = blocks[index] as Block;
    if (UNMARKABLE.has(String(block.type))) continue;
    block.cache_control = structuredClone(marker);
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
