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

/**
 * The open tool group: the ids of its calls that no result has answered yet (a result for any
 * other id is an orphan), and, of a finished assistant turn, the calls that need a result in the
 * context. The view and the host's unstored messages are grouped by this one rule.
 */
export class OpenCalls {
  private calls: ToolCall[] = [];
  private timestamp = 0;
  private open = new Set<string>();

  /**
   * A new group starts with `message`; answers, as synthetic results, the calls the group it ends
   * left open. An unfinished (aborted or failed) turn's calls take results but get none made up.
   */
  start(message: AgentMessage): AgentMessage[] {
    const unanswered = this.unanswered();
    const finished = isAssistantMessage(message) && !isUnfinished(message);
    this.open = new Set(isAssistantMessage(message) ? toolCallsOf(message).map((call) => call.id) : []);
    this.calls = finished ? toolCallsOf(message) : [];
    this.timestamp = finished ? message.timestamp : 0;
    return unanswered;
  }

  /**
   * Whether a result for `toolCallId` belongs to the group: it answers one of its calls, not
   * answered before (no provider pairs two results with one call). Marks the call answered.
   */
  answer(toolCallId: string): boolean {
    return this.open.delete(toolCallId);
  }

  /** A copy to continue from without changing this one. */
  copy(): OpenCalls {
    const copy = new OpenCalls();
    copy.calls = this.calls;
    copy.timestamp = this.timestamp;
    copy.open = new Set(this.open);
    return copy;
  }

  /** Synthetic error results for the calls still open. */
  unanswered(): AgentMessage[] {
    return this.calls
      .filter((call) => this.open.has(call.id))
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
