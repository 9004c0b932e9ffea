/**
 * Messages as recall tools show them: a header with the message id, role and time, then the
 * message's text exactly as stored (text, thinking, tool calls with their JSON arguments, tool
 * results). Also ids (`m12`) and search snippets.
 */
import { type AgentMessage, readableTextParts } from "@clew/core";

/** `m12` for seq 12. */
export function messageLabel(seq: number): string {
  return `m${seq}`;
}

/** The seq of `m12` (or `12`), or undefined when `id` is not a message id. */
export function parseMessageLabel(id: string): number | undefined {
  const match = /^m?(\d+)$/.exec(id.trim());
  const seq = match === null ? Number.NaN : Number(match[1]);
  return Number.isSafeInteger(seq) && seq > 0 ? seq : undefined;
}

/**
 * `[m12 user 2024-05-01T09:30Z]`: id, role and time to the minute. Evidence blocks repeat it for
 * every message, many of them a sentence long, so it is kept short: 16 tokens (o200k) against 22
 * for a separated header with a full timestamp, a seventh of a short message's room.
 */
export function readingHeader(seq: number, role: string, createdAt: number): string {
  return `[${messageLabel(seq)} ${role} ${minuteTime(createdAt)}]`;
}

/** ISO 8601 to the minute, in UTC: `2024-05-01T09:30Z`. */
function minuteTime(epochMs: number): string {
  return Number.isFinite(epochMs) ? `${new Date(epochMs).toISOString().slice(0, 16)}Z` : "unknown";
}

/**
 * Reading bodies of frozen stored rows, by row: a store that caches rows (the SQLite store does)
 * returns the same frozen object again, and its body need not be parsed again. Weak, so a body
 * goes when its row does; only frozen rows, whose JSON cannot change under the key.
 */
const bodiesOfFrozenRows = new WeakMap<object, string>();

/** The reading body (`readingBody`) of a stored message; throws a SyntaxError when its JSON does not parse. */
export function storedReadingBody(stored: { json: string }): string {
  const known = bodiesOfFrozenRows.get(stored);
  if (known !== undefined) return known;
  const body = readingBody(JSON.parse(stored.json) as AgentMessage);
  if (Object.isFrozen(stored)) bodiesOfFrozenRows.set(stored, body);
  return body;
}

/** The body of a message for reading; every character of its text parts, unchanged. */
export function readingBody(message: AgentMessage): string {
  const record = message as unknown as Record<string, unknown>;
  if (record.role === "assistant" && Array.isArray(record.content)) {
    return (record.content as Array<Record<string, unknown> | null>).map(assistantPart).join("\n");
  }
  if (record.role === "toolResult") {
    const status = record.isError === true ? "error result" : "result";
    const head = `(${status} of ${String(record.toolName)} ${String(record.toolCallId)})`;
    return [head, ...readableTextParts(message)].join("\n");
  }
  return readableTextParts(message).join("\n");
}

function assistantPart(block: Record<string, unknown> | null): string {
  // A block that is not an object (a stored message of another shape) reads as its JSON.
  if (typeof block !== "object" || block === null) return JSON.stringify(block);
  if (block.type === "text") return String(block.text ?? "");
  if (block.type === "thinking") return `(thinking) ${String(block.thinking ?? "")}`;
  if (block.type === "toolCall") {
    return `(tool call ${String(block.id)}) ${String(block.name)} ${JSON.stringify(block.arguments ?? {})}`;
  }
  return JSON.stringify(block);
}

const SNIPPET_RADIUS = 120;

/** A window of `text` around the first term it contains (its start when none does). */
export function snippetOf(text: string, terms: readonly string[]): string {
  const lower = text.toLowerCase();
  let at = -1;
  for (const term of terms) {
    const found = lower.indexOf(term.toLowerCase());
    if (found >= 0 && (at < 0 || found < at)) at = found;
  }
  const start = Math.max(0, at - SNIPPET_RADIUS);
  const end = Math.min(text.length, Math.max(0, at) + SNIPPET_RADIUS * 2);
  const window = text.slice(start, end).replace(/\s+/g, " ").trim();
  return `${start > 0 ? "…" : ""}${window}${end < text.length ? "…" : ""}`;
}

export function isoTime(epochMs: number): string {
  return Number.isFinite(epochMs) ? new Date(epochMs).toISOString() : "unknown";
}
