/** Pieces shared by the protocol writers: how a reply is cut into deltas, default usage. */
import type { FakeReply, FakeUsage, SseFrame } from "./types.js";

export const DEFAULT_USAGE: Required<FakeUsage> = { input: 10, output: 5, cacheRead: 0 };

/** The reply's usage with every field present. */
export function usageOf(reply: FakeReply): Required<FakeUsage> {
  return { ...DEFAULT_USAGE, ...reply.usage, cacheRead: reply.usage?.cacheRead ?? 0 };
}

/** Word-sized pieces (each with its trailing spaces), so a reply streams as several deltas. */
export function textPieces(text: string): string[] {
  return text.match(/\s*\S+\s*/g) ?? (text.length > 0 ? [text] : []);
}

/** JSON text cut into at most three pieces, like providers that stream arguments in fragments. */
export function jsonPieces(value: unknown): string[] {
  const json = JSON.stringify(value);
  const size = Math.max(1, Math.ceil(json.length / 3));
  const pieces: string[] = [];
  for (let start = 0; start < json.length; start += size) pieces.push(json.slice(start, start + size));
  return pieces;
}

/** A frame whose data is `value` as JSON, with an optional SSE `event:` name. */
export function jsonFrame(value: unknown, event?: string): SseFrame {
  const frame: SseFrame = { data: JSON.stringify(value) };
  if (event !== undefined) frame.event = event;
  return frame;
}

/** Seconds since the epoch, the unit OpenAI uses for `created`. */
export function unixSeconds(): number {
  return Math.floor(Date.now() / 1000);
}
