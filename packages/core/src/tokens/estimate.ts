import type { AgentMessage } from "../messages.js";
import type { TokenCounter } from "./token-counter.js";

/** Chars an image stands for in estimates (pi's figure). */
const IMAGE_CHARS = 4_800;

// Han, Hiragana, Katakana and Hangul: one character is about one token, not a quarter.
const CJK_RANGES = "\\u3040-\\u30ff\\u3400-\\u4dbf\\u4e00-\\u9fff\\uf900-\\ufaff\\uac00-\\ud7af";
const CJK = new RegExp(`[${CJK_RANGES}]`, "gu");

/**
 * A surrogate (half of an astral code point) or a CJK character: a text with neither has as many
 * code points as UTF-16 units and no CJK surcharge, so its `length` is the answer. One native scan
 * instead of iterating code points: most texts (English, code, logs) take this path.
 */
const NOT_SIMPLE = new RegExp(`[\\ud800-\\udfff${CJK_RANGES}]`);

/** Code points plus three per CJK character, so that `/4` counts each CJK character as one token. */
export function estimateStringChars(text: string): number {
  // A non-string (an odd message's "text") must fail below as before: callers fall back on it.
  if (typeof text === "string" && !NOT_SIMPLE.test(text)) return text.length;
  let length = 0;
  for (const _ of text) length++;
  const cjk = text.match(CJK)?.length ?? 0;
  return length + 3 * cjk;
}

/**
 * The characters of a message the model reads, the way pi and OpenClaw estimate them. Never
 * throws: a message of the wrong shape (an assistant's content as a string, a text block without
 * its text) counts by its JSON, as `modelVisibleParts` reads it.
 */
export function messageChars(message: AgentMessage): number {
  try {
    return visibleChars(message);
  } catch {
    return jsonChars(message);
  }
}

function visibleChars(message: AgentMessage): number {
  if (typeof message !== "object" || message === null || !("role" in message)) return jsonChars(message);
  switch (message.role) {
    case "user":
      if (typeof message.content === "string") return estimateStringChars(message.content);
      return message.content.reduce(
        (sum, block) => sum + (block.type === "text" ? estimateStringChars(block.text) : IMAGE_CHARS),
        0,
      );
    case "assistant":
      return message.content.reduce((sum, block) => {
        if (block.type === "text") return sum + estimateStringChars(block.text);
        if (block.type === "thinking") return sum + estimateStringChars(block.thinking);
        if (block.type === "toolCall") return sum + block.name.length + jsonChars(block.arguments);
        return sum + jsonChars(block);
      }, 0);
    case "toolResult":
      return message.content.reduce(
        (sum, block) => sum + (block.type === "text" ? estimateStringChars(block.text) : IMAGE_CHARS),
        0,
      );
    default:
      return jsonChars(message);
  }
}

function jsonChars(value: unknown): number {
  try {
    return estimateStringChars(JSON.stringify(value) ?? "");
  } catch {
    return 0;
  }
}

/** OpenClaw-compatible estimate: `ceil(chars / 4)`, CJK-aware. */
export const charEstimateTokenCounter: TokenCounter = {
  id: "chars/4",
  countText: (text) => Math.ceil(estimateStringChars(text) / 4),
  countMessage: (message) => Math.ceil(messageChars(message) / 4),
};

export function countMessagesTokens(counter: TokenCounter, messages: readonly AgentMessage[]): number {
  let total = 0;
  for (const message of messages) total += counter.countMessage(message);
  return total;
}
