/**
 * Builds a coding-agent session turn by turn: user prompts, tool steps (an assistant tool call and
 * its result) and final answers, with a clock and ids that only move forward. Every message is
 * also recorded as a source message (`M<n>`), the id the quality metrics know it by.
 */
import {
  type AgentMessage,
  type AssistantMessage,
  emptyUsage,
  type ImageContent,
  type TextContent,
  type ThinkingContent,
  type ToolResultMessage,
  type UserMessage,
} from "@clew/core";
import type { ReplayTurn, SourceMessage } from "../replay-turn.js";

const SESSION_START = Date.UTC(2024, 4, 1, 9, 0, 0);
const MESSAGE_SPACING_MS = 7_000;

export class AgentSessionWriter {
  readonly turns: ReplayTurn[] = [];
  readonly sources: SourceMessage[] = [];
  private clock = SESSION_START;
  private calls = 0;

  /** Starts a turn with `text` (or blocks) as the user's prompt; returns the prompt's source id. */
  startTurn(content: string | (TextContent | ImageContent)[]): string {
    const prompt: UserMessage = { role: "user", content, timestamp: this.tick() };
    this.turns.push({ prompt, steps: [] });
    return this.record(prompt);
  }

  /**
   * One tool step of the current turn: a call to `name` with `args`, answered by `result`.
   * `thinking` puts a signed thinking block before the call. Returns the result's source id.
   * Throws RangeError before the first `startTurn`.
   */
  toolStep(
    name: string,
    args: Record<string, unknown>,
    result: (TextContent | ImageContent)[],
    thinking?: ThinkingContent,
  ): string {
    const id = `call_${++this.calls}`;
    const call = this.assistant(
      [...(thinking === undefined ? [] : [thinking]), { type: "toolCall", id, name, arguments: args }],
      "toolUse",
    );
    const answer: ToolResultMessage = {
      role: "toolResult",
      toolCallId: id,
      toolName: name,
      content: result,
      isError: false,
      timestamp: this.tick(),
    };
    this.currentTurn().steps.push([call, answer]);
    this.record(call);
    return this.record(answer);
  }

  /** The turn's final answer; returns its source id. Throws RangeError before the first turn. */
  answer(text: string): string {
    const message = this.assistant([{ type: "text", text }], "stop");
    this.currentTurn().steps.push([message]);
    return this.record(message);
  }

  private assistant(content: AssistantMessage["content"], stopReason: AssistantMessage["stopReason"]) {
    const message: AssistantMessage = {
      role: "assistant",
      content,
      api: "anthropic-messages",
      provider: "bench",
      model: "agent-session",
      usage: emptyUsage(),
      stopReason,
      timestamp: this.tick(),
    };
    return message;
  }

  private currentTurn(): ReplayTurn {
    const turn = this.turns.at(-1);
    if (turn === undefined) throw new RangeError("AgentSessionWriter: start a turn first");
    return turn;
  }

  private record(message: AgentMessage): string {
    const id = `M${this.sources.length + 1}`;
    this.sources.push({ id, message });
    return id;
  }

  private tick(): number {
    this.clock += MESSAGE_SPACING_MS;
    return this.clock;
  }
}
