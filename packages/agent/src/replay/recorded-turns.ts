import type { AgentMessage, AssistantMessage, TranscriptEntry, UserMessage } from "@clew/core";
import { emptyUsage } from "@clew/core";

/** One user turn of a recording: the prompt, then the model's steps (assistant + tool results). */
export interface RecordedTurn {
  prompt: UserMessage;
  steps: AgentMessage[][];
}

/**
 * Splits a recorded session's active branch into turns. A turn starts at each user message; its
 * steps are the recorded assistant messages, each with the tool results that answered it. Other
 * model-visible messages (a bash run typed by the user) stay in the step they came with. Recorded
 * usage is zeroed: it described the original context, not the replayed one.
 */
export function recordedTurns(branch: readonly TranscriptEntry[]): RecordedTurn[] {
  const turns: RecordedTurn[] = [];
  let current: RecordedTurn | undefined;
  for (const entry of branch) {
    if (entry.type !== "message") continue;
    const message = entry.message as AgentMessage & { role?: string };
    if (message.role === "user") {
      current = { prompt: message as UserMessage, steps: [] };
      turns.push(current);
      continue;
    }
    if (current === undefined) continue;
    if (message.role === "assistant") current.steps.push([withoutUsage(message as AssistantMessage)]);
    else {
      const step = current.steps.at(-1);
      if (step === undefined) current.steps.push([message]);
      else step.push(message);
    }
  }
  return turns.filter((turn) => turn.steps.length > 0);
}

function withoutUsage(message: AssistantMessage): AssistantMessage {
  return {
    ...message,
    usage: emptyUsage(),
  };
}
