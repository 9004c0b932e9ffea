/**
 * Shortens one message for display when it alone cannot fit the budget (a 100k-token tool result
 * in a 16k context). Only the copy the model sees is shortened; the stored message stays whole and
 * the marker tells the model how to read it. Head and tail of each text part are kept, because
 * commands print what matters first (what ran) and last (the result or the error).
 */
import type { AgentMessage, TokenCounter } from "@clew/core";

const HEAD_SHARE = 0.7;
/** Binary-search steps over the kept share: 2^-14 of a 1 MB text is about 60 characters. */
const SEARCH_STEPS = 14;

/**
 * `message` with its text parts cut to fit `maxTokens`, or undefined when even the message with
 * every text emptied does not fit (or it has no text to cut). Never mutates `message`.
 */
export function clipMessage(
  message: AgentMessage,
  maxTokens: number,
  counter: TokenCounter,
  label: string,
): AgentMessage | undefined {
  if (!hasClippableText(message)) return undefined;
  const attempt = (share: number) => withTextsClipped(message, share, label);
  const smallest = attempt(0);
  if (counter.countMessage(smallest) > maxTokens) return undefined;
  let low = 0;
  let high = 1;
  for (let step = 0; step < SEARCH_STEPS; step++) {
    const middle = (low + high) / 2;
    if (counter.countMessage(attempt(middle)) <= maxTokens) low = middle;
    else high = middle;
  }
  return attempt(low);
}

function hasClippableText(message: AgentMessage): boolean {
  const record = message as unknown as Record<string, unknown>;
  if (typeof record.content === "string") return record.content.length > 0;
  if (!Array.isArray(record.content)) return false;
  return record.content.some((block: { type?: string } | null) => block?.type === "text");
}

function withTextsClipped(message: AgentMessage, share: number, label: string): AgentMessage {
  const record = message as unknown as Record<string, unknown>;
  if (typeof record.content === "string") {
    return { ...record, content: clipText(record.content, share, label) } as unknown as AgentMessage;
  }
  const content = (record.content as Array<Record<string, unknown> | null>).map((block) =>
    block?.type === "text" && typeof block.text === "string"
      ? { ...block, text: clipText(block.text, share, label) }
      : block,
  );
  return { ...record, content } as unknown as AgentMessage;
}

function clipText(text: string, share: number, label: string): string {
  const kept = Math.floor(text.length * share);
  if (kept >= text.length) return text;
  const head = text.slice(0, Math.floor(kept * HEAD_SHARE));
  const tail = text.slice(text.length - (kept - head.length));
  const omitted = text.length - head.length - tail.length;
  return `${head}\n[… ${omitted} characters left out to fit the context; ${label}]\n${tail}`;
}
