/**
 * The parts of a message a model reads, in one place, so counters, identifier extraction and
 * summarizers agree on what "the text of a message" is.
 *
 * `modelVisibleParts` mirrors `messageChars` in `estimate.ts` part for part (user text, assistant
 * text + thinking + toolCall name + JSON arguments, toolResult text, images as placeholders,
 * anything else as its JSON), so an exact counter and the chars/4 estimate measure the same thing.
 * `readableTextParts` is for reading rather than counting: it yields the string values themselves
 * (toolCall arguments and unknown messages by their string leaves, not their JSON), so an
 * identifier inside an argument is seen as written, not JSON-escaped.
 *
 * Neither function throws: messages are untrusted data and odd shapes degrade to JSON or nothing.
 */
import type { AgentMessage } from "../messages.js";

export type VisiblePart = { kind: "text"; text: string } | { kind: "image" };

/** What the model is sent for `message`, as text parts and image placeholders. */
export function modelVisibleParts(message: AgentMessage): VisiblePart[] {
  try {
    return visiblePartsOf(message);
  } catch {
    // A stored message of the wrong shape (content not an array, say) still counts by its JSON.
    return [textPart(safeJson(message))];
  }
}

/** The strings of `message` a reader would see, without JSON escaping; images are skipped. */
export function readableTextParts(message: AgentMessage): string[] {
  try {
    const parts = readablePartsOf(message);
    // A block of the wrong shape (a text that is a number, a missing text) reads as its strings.
    if (parts.every((part) => typeof part === "string")) return parts;
  } catch {
    // Content of the wrong shape altogether: the same.
  }
  return stringLeaves(message, MESSAGE_BOOKKEEPING_KEYS);
}

function visiblePartsOf(message: AgentMessage): VisiblePart[] {
  if (!isRecord(message) || !("role" in message)) return [textPart(safeJson(message))];
  switch (message.role) {
    case "user":
      if (typeof message.content === "string") return [textPart(message.content)];
      return message.content.map((block) => (block.type === "text" ? textPart(block.text) : IMAGE_PART));
    case "assistant":
      return message.content.flatMap((block): VisiblePart[] => {
        if (block.type === "text") return [textPart(block.text)];
        if (block.type === "thinking") return [textPart(block.thinking)];
        if (block.type === "toolCall") return [textPart(block.name), textPart(safeJson(block.arguments))];
        return [textPart(safeJson(block))];
      });
    case "toolResult":
      return message.content.map((block) => (block.type === "text" ? textPart(block.text) : IMAGE_PART));
    default:
      return [textPart(safeJson(message))];
  }
}

function readablePartsOf(message: AgentMessage): string[] {
  if (!isRecord(message) || !("role" in message)) return stringLeaves(message, MESSAGE_BOOKKEEPING_KEYS);
  switch (message.role) {
    case "user":
      if (typeof message.content === "string") return [message.content];
      return message.content.flatMap((block) => (block.type === "text" ? [block.text] : []));
    case "assistant":
      return message.content.flatMap((block): string[] => {
        if (block.type === "text") return [block.text];
        if (block.type === "thinking") return [block.thinking];
        if (block.type === "toolCall") return [block.name, ...stringLeaves(block.arguments, NO_KEYS)];
        return stringLeaves(block, MESSAGE_BOOKKEEPING_KEYS);
      });
    case "toolResult":
      return message.content.flatMap((block) => (block.type === "text" ? [block.text] : []));
    default:
      return stringLeaves(message, MESSAGE_BOOKKEEPING_KEYS);
  }
}

/** `JSON.stringify` that never throws (cycles, BigInt) and never returns undefined. */
export function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? "";
  } catch {
    return "";
  }
}

const IMAGE_PART: VisiblePart = { kind: "image" };

/**
 * A text part. Text that is missing or not a string throws, so `modelVisibleParts` counts the
 * whole message by its JSON, as `messageChars` does.
 */
function textPart(text: unknown): VisiblePart {
  if (typeof text !== "string") throw new TypeError("a text part without a string");
  return { kind: "text", text };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}

// Deep enough for any tool argument shape seen in practice; the limit only guards against cycles.
const MAX_LEAF_DEPTH = 16;
/**
 * Keys of unknown messages that are bookkeeping (role, timestamps, provider names) or base64
 * payloads (`data`), not conversation text. Tool arguments skip nothing: every key is the model's.
 */
const MESSAGE_BOOKKEEPING_KEYS: ReadonlySet<string> = new Set([
  "role",
  "type",
  "timestamp",
  "api",
  "provider",
  "model",
  "data",
]);
const NO_KEYS: ReadonlySet<string> = new Set();

/** Every string value inside `value`, depth first, skipping the values of `skippedKeys`. */
function stringLeaves(value: unknown, skippedKeys: ReadonlySet<string>, depth = 0): string[] {
  if (typeof value === "string") return [value];
  if (depth >= MAX_LEAF_DEPTH || !isRecord(value)) return [];
  if (Array.isArray(value)) return value.flatMap((item) => stringLeaves(item, skippedKeys, depth + 1));
  return Object.entries(value).flatMap(([key, item]) =>
    skippedKeys.has(key) ? [] : stringLeaves(item, skippedKeys, depth + 1),
  );
}
