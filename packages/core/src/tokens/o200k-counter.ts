/**
 * An exact token counter with OpenAI's o200k_base encoding (gpt-tokenizer), the reference counter
 * of the quality suite. Other providers tokenize differently; wrap this counter with
 * `withSafetyFactor` when budgeting for them.
 *
 * The encoding's rank tables take about half a second to load, so they are loaded on demand by
 * `loadO200kTokenCounter` instead of when `@clew/core` is imported.
 */
import type * as O200kEncoding from "gpt-tokenizer/encoding/o200k_base";
import type { AgentMessage } from "../messages.js";
import { estimateStringChars } from "./estimate.js";
import { modelVisibleParts } from "./message-text.js";
import type { TokenCounter } from "./token-counter.js";

/** Tokens an image stands for (the estimate's 4,800 chars at four chars a token). */
export const O200K_IMAGE_TOKENS = 1_200;

export const O200K_COUNTER_ID = "o200k";

type CountTokens = typeof O200kEncoding.countTokens;

// Special-token text such as "<|endoftext|>" inside a message is plain text to us: the default
// options would make gpt-tokenizer throw on it, and a counter must never throw.
const PLAIN_TEXT_OPTIONS = { disallowedSpecial: new Set<string>() };

/**
 * Loads the o200k_base encoding (once per process; later calls reuse the loaded module) and
 * returns a counter over it. Rejects only when the `gpt-tokenizer` package cannot be loaded.
 */
export async function loadO200kTokenCounter(): Promise<TokenCounter> {
  const encoding = await import("gpt-tokenizer/encoding/o200k_base");
  return createO200kTokenCounter(encoding.countTokens);
}

/**
 * A counter over an already loaded `countTokens` of the o200k_base encoding. `countMessage` counts
 * the parts `modelVisibleParts` lists: text by the encoding, each image as `O200K_IMAGE_TOKENS`.
 * Never throws: if the tokenizer ever fails on some text, that text falls back to chars/4.
 */
export function createO200kTokenCounter(countTokens: CountTokens): TokenCounter {
  const countText = (text: string): number => {
    if (text.length === 0) return 0;
    try {
      return countTokens(text, PLAIN_TEXT_OPTIONS);
    } catch {
      return Math.ceil(estimateStringChars(text) / 4);
    }
  };
  const countMessage = (message: AgentMessage): number => {
    let total = 0;
    for (const part of modelVisibleParts(message)) {
      total += part.kind === "text" ? countText(part.text) : O200K_IMAGE_TOKENS;
    }
    return total;
  };
  return { id: O200K_COUNTER_ID, countText, countMessage };
}
