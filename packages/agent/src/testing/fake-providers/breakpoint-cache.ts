/**
 * A model of Anthropic's prompt cache, for the fake Anthropic provider. Unlike a provider that
 * caches any prefix it has seen (`prefix-cache.ts`), it caches a prompt's prefix only up to each
 * block that carries `cache_control` (a breakpoint), and a request reads a cached prefix only when
 * it ends at one of the request's breakpoints or at a block at most `LOOKBACK_BLOCKS` before one.
 * A prompt is its blocks in Anthropic's order: the tools, the system blocks, then every message's
 * content blocks (a string content is one block); markers are no part of a block's identity.
 * The minimum cacheable length and expiry are left out: it says exactly what the breakpoints
 * placed allow, and nothing about what a provider would refuse to cache.
 */
import { createHash } from "node:crypto";
import type { FakeReply, FakeScript, RecordedRequest } from "./types.js";

/** How far back from a breakpoint Anthropic looks for a cached prefix. */
export const LOOKBACK_BLOCKS = 20;

type Block = Record<string, unknown>;

export interface BreakpointCache {
  /** `script` with each reply's `input` and `cacheRead` set from the request it answers. */
  script: FakeScript;
  /** Tokens read from the cache by each request answered, in order. */
  readonly cacheReads: readonly number[];
  /** Breakpoints of each request answered, in order (never more than 4 on the real API). */
  readonly breakpoints: readonly number[];
}

/**
 * Wraps `script` with the model: replies keep their text, tool calls and output tokens and report
 * `input` and `cacheRead` from the request (a block counts `ceil(chars / 4)` tokens of its JSON).
 * Rejected requests (overflow, error answers) read nothing and write nothing.
 */
export function withBreakpointCache(script: FakeScript): BreakpointCache {
  const cached = new Set<string>();
  const cacheReads: number[] = [];
  const breakpoints: number[] = [];
  return {
    cacheReads,
    breakpoints,
    script(request: RecordedRequest): FakeReply {
      const reply = script(request);
      const blocks = promptBlocks(request.body);
      const keys = prefixKeys(blocks);
      const tokens = blocks.map((block) => Math.ceil(JSON.stringify(withoutMarker(block)).length / 4));
      const marked = blocks.flatMap((block, index) => (block.cache_control === undefined ? [] : [index]));
      breakpoints.push(marked.length);
      const rejected = reply.overflow === true || reply.status !== undefined || reply.error !== undefined;
      let readBlocks = 0;
      if (!rejected) {
        for (const breakpoint of marked) {
          for (let end = breakpoint; end >= Math.max(0, breakpoint - LOOKBACK_BLOCKS); end--) {
            if (cached.has(keys[end] as string)) {
              readBlocks = Math.max(readBlocks, end + 1);
              break;
            }
          }
        }
        for (const breakpoint of marked) cached.add(keys[breakpoint] as string);
      }
      const total = tokens.reduce((sum, count) => sum + count, 0);
      const cacheRead = tokens.slice(0, readBlocks).reduce((sum, count) => sum + count, 0);
      cacheReads.push(cacheRead);
      return { ...reply, usage: { output: reply.usage?.output ?? 5, input: total - cacheRead, cacheRead } };
    },
  };
}

/** The request's blocks in cache order: tools, system, then each message's content blocks. */
function promptBlocks(body: unknown): Block[] {
  const request = (typeof body === "object" && body !== null ? body : {}) as Record<string, unknown>;
  const list = (value: unknown): Block[] => (Array.isArray(value) ? (value as Block[]) : []);
  const system =
    typeof request.system === "string" ? [{ type: "text", text: request.system }] : list(request.system);
  const messages = list(request.messages).flatMap((message) => {
    const content = message.content;
    const blocks = typeof content === "string" ? [{ type: "text", text: content }] : list(content);
    return blocks.map((block) => ({ ...block, role: message.role }));
  });
  return [...list(request.tools), ...system, ...messages];
}

/** Keys of every prefix: key[i] names blocks 0..i, markers left out. */
function prefixKeys(blocks: readonly Block[]): string[] {
  const keys: string[] = [];
  let previous = "";
  for (const block of blocks) {
    previous = createHash("sha256")
      .update(previous)
      .update(JSON.stringify(withoutMarker(block)))
      .digest("hex");
    keys.push(previous);
  }
  return keys;
}

function withoutMarker(block: Block): Block {
  const { cache_control: _marker, ...rest } = block;
  return rest;
}
