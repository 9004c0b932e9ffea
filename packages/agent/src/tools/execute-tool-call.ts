/**
 * One tool call in, one tool result out. Whatever happens (unknown tool, bad arguments, a
 * throwing or hanging tool, an abort) the model gets a result for the call: a transcript with a
 * tool call and no result is rejected by providers.
 */
import { describeError } from "@clew/core";
import type { AgentToolUpdateCallback } from "@mariozechner/pi-agent-core";
import { type ToolResultMessage, validateToolArguments } from "@mariozechner/pi-ai";
import type { AnyAgentTool } from "./tool.js";

export const TOOL_CALL_ABORTED_TEXT = "Tool call aborted";

/**
 * Longest argument-validation message returned. pi's message echoes the arguments back, and a
 * rejected `write` of a large file would otherwise put the whole file into the context again.
 */
const MAX_VALIDATION_MESSAGE_CHARS = 2000;

/** The parts of a model's tool call this needs. */
export interface ToolCallRequest {
  id: string;
  name: string;
  arguments: unknown;
}

export interface ExecuteToolCallOptions {
  /** Clock for the result's `timestamp`; `Date.now` when unset. */
  now?: () => number;
  /** Names listed when the tool is unknown. */
  availableTools?: Iterable<string>;
  /** Receives the tool's partial results. */
  onUpdate?: AgentToolUpdateCallback;
}

/**
 * Runs `toolCall` with `tool` and answers a `ToolResultMessage`. Never rejects. Answers an
 * `isError` result when the tool is undefined ("Tool <name> is not available. Available tools:
 * …"), when the arguments fail the tool's schema (the message names each bad field), when the
 * tool throws (its message), when it returns something that is not a tool result, and when
 * `signal` fires before the tool settles ("Tool call aborted", even if the tool ignores the signal).
 */
export async function executeToolCall(
  tool: AnyAgentTool | undefined,
  toolCall: ToolCallRequest,
  signal: AbortSignal | undefined,
  options: ExecuteToolCallOptions = {},
): Promise<ToolResultMessage> {
  const now = options.now ?? Date.now;
  const errorResult = (text: string) =>
    toolResult(toolCall, { content: textContent(text), isError: true }, now);
  if (signal?.aborted) return errorResult(TOOL_CALL_ABORTED_TEXT);
  if (tool === undefined) return errorResult(unavailableToolText(toolCall.name, options.availableTools));

  let params: unknown;
  try {
    params = prepareArguments(tool, toolCall);
  } catch (error) {
    return errorResult(capText(describeError(error), MAX_VALIDATION_MESSAGE_CHARS));
  }

  const outcome = await settleUnlessAborted(
    Promise.resolve().then(() => tool.execute(toolCall.id, params, signal, options.onUpdate)),
    signal,
  );
  if (outcome.kind === "aborted") return errorResult(TOOL_CALL_ABORTED_TEXT);
  if (outcome.kind === "rejected") {
    return errorResult(signal?.aborted ? TOOL_CALL_ABORTED_TEXT : describeError(outcome.error));
  }
  if (!isToolResultShape(outcome.value)) {
    return errorResult(`Tool ${toolCall.name} returned an invalid result (expected { content: [...] })`);
  }
  const { content, details } = outcome.value;
  return toolResult(toolCall, { content, details, isError: false }, now);
}

/** Applies the tool's own argument shim, then validates (and coerces) against its schema. */
function prepareArguments(tool: AnyAgentTool, toolCall: ToolCallRequest): unknown {
  const raw =
    tool.prepareArguments === undefined ? toolCall.arguments : tool.prepareArguments(toolCall.arguments);
  const argumentsObject = (raw ?? {}) as Record<string, unknown>;
  return validateToolArguments(tool, {
    type: "toolCall",
    id: toolCall.id,
    name: toolCall.name,
    arguments: argumentsObject,
  });
}

type Outcome =
  | { kind: "fulfilled"; value: unknown }
  | { kind: "rejected"; error: unknown }
  | { kind: "aborted" };

/** Settles with the promise, or with "aborted" as soon as `signal` fires, whichever is first. */
function settleUnlessAborted(promise: Promise<unknown>, signal: AbortSignal | undefined): Promise<Outcome> {
  const settled = promise.then(
    (value): Outcome => ({ kind: "fulfilled", value }),
    (error: unknown): Outcome => ({ kind: "rejected", error }),
  );
  if (signal === undefined) return settled;
  return new Promise((resolve) => {
    const onAbort = () => resolve({ kind: "aborted" });
    signal.addEventListener("abort", onAbort, { once: true });
    void settled.then((outcome) => {
      signal.removeEventListener("abort", onAbort);
      resolve(outcome);
    });
  });
}

function capText(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  return `${text.slice(0, maxChars)}\n[... ${text.length - maxChars} chars omitted]`;
}

function unavailableToolText(name: string, availableTools: Iterable<string> | undefined): string {
  const names = [...(availableTools ?? [])];
  return `Tool ${name} is not available. Available tools: ${names.length > 0 ? names.join(", ") : "(none)"}`;
}

function isToolResultShape(
  value: unknown,
): value is { content: ToolResultMessage["content"]; details?: unknown } {
  return (
    typeof value === "object" && value !== null && Array.isArray((value as { content?: unknown }).content)
  );
}

function textContent(text: string): ToolResultMessage["content"] {
  return [{ type: "text", text }];
}

function toolResult(
  toolCall: ToolCallRequest,
  result: { content: ToolResultMessage["content"]; details?: unknown; isError: boolean },
  now: () => number,
): ToolResultMessage {
  return {
    role: "toolResult",
    toolCallId: toolCall.id,
    toolName: toolCall.name,
    content: result.content,
    ...(result.details === undefined ? {} : { details: result.details }),
    isError: result.isError,
    timestamp: now(),
  };
}
