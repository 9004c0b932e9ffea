/**
 * What the quality suite replays through a host: turns of a recorded (or generated) session.
 * A turn is the user's prompt and the model's steps; each step is one assistant message with the
 * tool results that answered it, exactly what a model step returns.
 */
import type { AgentMessage, UserMessage } from "@clew/core";

export interface ReplayTurn {
  prompt: UserMessage;
  steps: AgentMessage[][];
}

/** Every message of `turns` in stored order: each prompt, then its steps. */
export function messagesOfTurns(turns: readonly ReplayTurn[]): AgentMessage[] {
  return turns.flatMap((turn) => [turn.prompt, ...turn.steps.flat()]);
}

/** A source message with the id the workload knows it by (a LoCoMo `dia_id`, a needle's carrier). */
export interface SourceMessage {
  id: string;
  message: AgentMessage;
}
