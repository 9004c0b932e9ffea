/**
 * `createSummaryComplete`: the model call behind Clew's model summarizer
 * (`@clew/core`'s `SummaryCompleteFunction`), made with the resolved summary model.
 */
import type { SummaryCompleteFunction, SummaryUsage } from "@clew/core";
import type { Usage } from "@mariozechner/pi-ai";
import { callModel, replyText } from "./call-model.js";
import type { ResolvedModel } from "./resolve-model.js";

export interface SummaryCompleteOptions {
  /** Stamps the prompt message. Default `Date.now`. */
  now?: () => number;
  /** SDK retries; default the SDK's. */
  maxRetries?: number;
}

/**
 * A `SummaryCompleteFunction` that sends the prompt as one user message (no tools) and resolves
 * with the reply's text blocks joined (possibly empty: the summarizer judges that) and the call's
 * usage: tokens as the provider reported them, and dollars at the model's configured prices (left
 * out when the model has no prices: a zero would read as free). Rejects with
 * `signal.reason` when the call was aborted, and with `ModelCallError` when the model answered
 * with an error (`isOverflow` set for context overflow).
 */
export function createSummaryComplete(
  resolved: ResolvedModel,
  options: SummaryCompleteOptions = {},
): SummaryCompleteFunction {
  const now = options.now ?? Date.now;
  return async (request) => {
    const callOptions: Parameters<typeof callModel>[2] = { maxTokens: request.maxTokens, now };
    if (request.signal !== undefined) callOptions.signal = request.signal;
    if (options.maxRetries !== undefined) callOptions.maxRetries = options.maxRetries;
    const message = await callModel(
      resolved,
      {
        systemPrompt: request.systemPrompt,
        messages: [{ role: "user", content: request.prompt, timestamp: now() }],
        tools: [],
      },
      callOptions,
    );
    const text = replyText(message, resolved, request.signal);
    return { text, usage: usageOf(message.usage, resolved) };
  };
}

function usageOf(usage: Usage, resolved: ResolvedModel): SummaryUsage {
  const costUsd = pricedCost(usage, resolved);
  return {
    inputTokens: usage.input + usage.cacheRead + usage.cacheWrite,
    outputTokens: usage.output,
    ...(costUsd === undefined ? {} : { costUsd }),
  };
}

/** What the call cost in dollars, when the model has prices configured; else undefined. */
export function pricedCost(usage: Usage, resolved: ResolvedModel): number | undefined {
  const prices = resolved.model.cost;
  const priced = prices.input > 0 || prices.output > 0 || prices.cacheRead > 0 || prices.cacheWrite > 0;
  return priced && Number.isFinite(usage.cost.total) ? usage.cost.total : undefined;
}
