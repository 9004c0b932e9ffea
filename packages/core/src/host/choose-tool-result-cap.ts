import { type AgentMessage, isToolResultMessage } from "../messages.js";
import { countMessagesTokens } from "../tokens/estimate.js";
import type { TokenCounter } from "../tokens/token-counter.js";
import { PRECHECK_SAFETY_MARGIN } from "./host-options.js";
import { capToolResults, toolResultCharCap } from "./prepare-context.js";

/** OpenClaw keeps at least this much of a tool result when it truncates one. */
export const MIN_TOOL_RESULT_CHARS = 2_000;

export interface ChooseToolResultCapInput {
  /** The request's messages as prepared (without the pending turn messages). */
  messages: readonly AgentMessage[];
  /** Tokens of what the cap cannot shrink: the system prompt and the pending turn messages. */
  fixedTokens: number;
  /** What the overflow check holds the estimate to (window − effective reserve). */
  budgetTokens: number;
  contextWindow: number;
  counter: TokenCounter;
  /** The cap already in force for this run, if any: only smaller caps are considered. */
  currentCap?: number;
}

/**
 * The tool-result cap (characters) for a request that does not fit: OpenClaw's cap for the window,
 * then halves of it down to 2,000 characters. Returns the largest that brings the overflow
 * check's estimate (`(fixed + messages) × 1.2`) within the budget, or the smallest that still cuts
 * something when none does (the check then decides). Returns undefined when no cap below
 * `currentCap` cuts any tool result: cutting cannot help any more.
 *
 * Only decides; the request is cut by `capToolResults` (head and tail with a marker), so a tool
 * result always stays one message right after its call, and the transcript is never touched.
 */
export function chooseToolResultCap(input: ChooseToolResultCapInput): number | undefined {
  let smallestCutting: number | undefined;
  for (const cap of candidateCaps(input.contextWindow)) {
    if (input.currentCap !== undefined && cap >= input.currentCap) continue;
    if (!hasToolResultOver(input.messages, cap)) continue;
    smallestCutting = cap;
    const messages = capToolResults([...input.messages], cap);
    const estimate = Math.ceil(
      (input.fixedTokens + countMessagesTokens(input.counter, messages)) * PRECHECK_SAFETY_MARGIN,
    );
    if (estimate <= input.budgetTokens) return cap;
  }
  return smallestCutting;
}

/** Whether some tool result's text is longer than `cap` characters. */
export function hasToolResultOver(messages: readonly AgentMessage[], cap: number): boolean {
  return messages.some(
    (message) =>
      isToolResultMessage(message) &&
      message.content.reduce((sum, block) => sum + (block.type === "text" ? block.text.length : 0), 0) > cap,
  );
}

function candidateCaps(contextWindow: number): number[] {
  const caps: number[] = [];
  for (let cap = toolResultCharCap(contextWindow); cap > MIN_TOOL_RESULT_CHARS; cap = Math.floor(cap / 2))
    caps.push(cap);
  caps.push(MIN_TOOL_RESULT_CHARS);
  return caps;
}
