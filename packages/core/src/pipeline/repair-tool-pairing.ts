/**
 * Tool-call / tool-result pairing repair. Providers reject a transcript where a tool result does not
 * directly follow the assistant message that called it, where a result answers no call, or (Anthropic)
 * where a call has no result. Stored transcripts break these rules after crashes, aborted turns,
 * steering messages typed mid-tool-run and history limiting.
 */
import type { AgentMessage, AssistantMessage, ToolCall, ToolResultMessage } from "../messages.js";

export const SYNTHETIC_TOOL_RESULT_TEXT =
  "[clew] missing tool result in session history; inserted synthetic error result for transcript repair.";

export interface RepairToolPairingOptions {
  /** Answer each call that has no result with a synthetic error result. Default true. */
  insertSyntheticResults?: boolean;
}

export interface ToolPairingRepair {
  messages: AgentMessage[];
  /** Synthetic error results inserted for calls without a result. */
  syntheticResults: number;
  /** Results dropped because an earlier result already answered their id. */
  droppedDuplicates: number;
  /** Results dropped because no call owns them (including results of error or aborted turns). */
  droppedOrphans: number;
  /** Calls removed because an earlier call of a replayed turn already used their id. */
  droppedDuplicateCalls: number;
}

/**
 * Repairs tool pairing and returns the new messages. See `repairToolResultPairingWithReport`.
 * Never mutates its input and never throws.
 */
export function repairToolResultPairing(
  messages: readonly AgentMessage[],
  options: RepairToolPairingOptions = {},
): AgentMessage[] {
  return repairToolResultPairingWithReport(messages, options).messages;
}

/**
 * For each assistant message with tool calls (stop reason other than `error`/`aborted`):
 * - the results for its calls found before the next assistant message are moved right after it, in
 *   call order; other messages of that span (user steering, …) follow them in their original order;
 * - a call with no result gets a synthetic error result (`isError: true`, same `toolName`, text
 *   `SYNTHETIC_TOOL_RESULT_TEXT`, the assistant's timestamp) unless `insertSyntheticResults` is false;
 * - a call whose id an earlier replayed call already used is removed (no provider can pair two calls
 *   with one id), and an assistant message left empty by that is dropped.
 * Results are dropped when their id was already answered anywhere earlier (first one wins) or when
 * no call of the preceding assistant message owns them; results of `error`/`aborted` turns are
 * therefore dropped, and such turns get no synthetic results. Messages of other roles are kept.
 * Deterministic and idempotent; never mutates its input and never throws.
 */
export function repairToolResultPairingWithReport(
  messages: readonly AgentMessage[],
  options: RepairToolPairingOptions = {},
): ToolPairingRepair {
  const repair = new PairingRepair(options.insertSyntheticResults ?? true);
  let index = 0;
  while (index < messages.length) {
    index = repair.visit(messages, index);
  }
  return repair.report();
}

class PairingRepair {
  private readonly output: AgentMessage[] = [];
  private readonly answeredIds = new Set<string>();
  private readonly claimedCallIds = new Set<string>();
  private syntheticResults = 0;
  private droppedDuplicates = 0;
  private droppedOrphans = 0;
  private droppedDuplicateCalls = 0;

  constructor(private readonly insertSyntheticResults: boolean) {}

  /** Handles the message at `index` (and, for a tool-calling turn, its span); returns the next index. */
  visit(messages: readonly AgentMessage[], index: number): number {
    const message = messages[index];
    if (message === undefined) return index + 1;
    if (message.role === "toolResult") {
      this.dropUnowned(message);
      return index + 1;
    }
    if (message.role !== "assistant" || isUnfinished(message) || toolCallsOf(message).length === 0) {
      this.output.push(message);
      return index + 1;
    }
    return this.visitToolTurn(messages, index, message);
  }

  report(): ToolPairingRepair {
    return {
      messages: this.output,
      syntheticResults: this.syntheticResults,
      droppedDuplicates: this.droppedDuplicates,
      droppedOrphans: this.droppedOrphans,
      droppedDuplicateCalls: this.droppedDuplicateCalls,
    };
  }

  private visitToolTurn(messages: readonly AgentMessage[], index: number, message: AssistantMessage): number {
    const assistant = this.withoutDuplicateCalls(message);
    const calls = assistant === undefined ? [] : toolCallsOf(assistant);
    const callIds = new Set(calls.map((call) => call.id));
    const resultsById = new Map<string, ToolResultMessage>();
    const others: AgentMessage[] = [];
    let next = index + 1;
    for (; next < messages.length; next++) {
      const spanMessage = messages[next];
      if (spanMessage === undefined) continue;
      if (spanMessage.role === "assistant") break;
      if (spanMessage.role !== "toolResult") others.push(spanMessage);
      else if (!callIds.has(spanMessage.toolCallId)) this.dropUnowned(spanMessage);
      else if (resultsById.has(spanMessage.toolCallId) || this.answeredIds.has(spanMessage.toolCallId)) {
        this.droppedDuplicates++;
      } else resultsById.set(spanMessage.toolCallId, spanMessage);
    }
    if (assistant !== undefined) {
      this.output.push(assistant);
      for (const call of calls) this.answer(call, resultsById.get(call.id), assistant);
    }
    this.output.push(...others);
    return next;
  }

  private answer(call: ToolCall, result: ToolResultMessage | undefined, assistant: AssistantMessage): void {
    if (result !== undefined) {
      this.answeredIds.add(call.id);
      this.output.push(result);
      return;
    }
    if (!this.insertSyntheticResults) return;
    this.answeredIds.add(call.id);
    this.syntheticResults++;
    this.output.push(syntheticToolResult(call, assistant.timestamp));
  }

  // Returns undefined when every call was a duplicate and nothing else is left in the message.
  private withoutDuplicateCalls(message: AssistantMessage): AssistantMessage | undefined {
    let removed = 0;
    const content = message.content.filter((block) => {
      if (block.type !== "toolCall" || !isPairableCall(block)) return true;
      if (this.claimedCallIds.has(block.id)) {
        removed++;
        return false;
      }
      this.claimedCallIds.add(block.id);
      return true;
    });
    this.droppedDuplicateCalls += removed;
    if (removed === 0) return message;
    return content.length > 0 ? { ...message, content } : undefined;
  }

  private dropUnowned(result: ToolResultMessage): void {
    if (this.answeredIds.has(result.toolCallId)) this.droppedDuplicates++;
    else this.droppedOrphans++;
  }
}

/** The synthetic error result for a call that has none. */
export function syntheticToolResult(call: ToolCall, timestamp: number): ToolResultMessage {
  return {
    role: "toolResult",
    toolCallId: call.id,
    toolName: call.name,
    content: [{ type: "text", text: SYNTHETIC_TOOL_RESULT_TEXT }],
    isError: true,
    timestamp,
  };
}

/** Turns that ended in `error` or `aborted`: providers skip them on replay, so they own no results. */
export function isUnfinished(message: AssistantMessage): boolean {
  return message.stopReason === "error" || message.stopReason === "aborted";
}

/**
 * The tool calls of an assistant message that can be paired (string, non-empty id); none when its
 * content is not a list (a stored message of another shape).
 */
export function toolCallsOf(message: AssistantMessage): ToolCall[] {
  if (!Array.isArray(message.content)) return [];
  return message.content.filter(
    (block): block is ToolCall =>
      typeof block === "object" && block !== null && block.type === "toolCall" && isPairableCall(block),
  );
}

function isPairableCall(call: ToolCall): boolean {
  return typeof call.id === "string" && call.id.length > 0;
}
