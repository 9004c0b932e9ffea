/**
 * Tool calls of a stored turn that never got a result (a turn aborted or crashed mid-tool, as
 * recorded sessions hold). Providers reject such a call (Anthropic: a `tool_use` without its
 * `tool_result`), so the context answers it with core's synthetic error result, in the context
 * only: the store keeps the history as it was.
 */
import {
  type AgentMessage,
  isAssistantMessage,
  isUnfinished,
  syntheticToolResult,
  type ToolCall,
  toolCallsOf,
} from "@clew/core";

/** The calls of the open tool group, and which of them have been answered so far. */
export class OpenCalls {
  private calls: ToolCall[] = [];
  private timestamp = 0;
  private readonly answered = new Set<string>();

  /** A new group starts with `message`: its calls (if it is a finished assistant turn) are open. */
  start(message: AgentMessage): void {
    this.answered.clear();
    const finished = isAssistantMessage(message) && !isUnfinished(message);
    this.calls = finished ? toolCallsOf(message) : [];
    this.timestamp = finished ? message.timestamp : 0;
  }

  answer(toolCallId: string): void {
    this.answered.add(toolCallId);
  }

  /** A copy to continue from without changing this one. */
  copy(): OpenCalls {
    const copy = new OpenCalls();
    copy.calls = this.calls;
    copy.timestamp = this.timestamp;
    for (const id of this.answered) copy.answered.add(id);
    return copy;
  }

  /** Synthetic error results for the calls still open. */
  unanswered(): AgentMessage[] {
    return this.calls
      .filter((call) => !this.answered.has(call.id))
      .map((call) => syntheticToolResult(call, this.timestamp));
  }
}

/**
 * Tokens a synthetic result may cost, counted without a tokenizer: at most one token per two
 * characters of its JSON, more than any tokenizer in use gives it, so the budget is never exceeded.
 */
export function syntheticResultTokens(message: AgentMessage): number {
  return Math.ceil(JSON.stringify(message).length / 2);
}
