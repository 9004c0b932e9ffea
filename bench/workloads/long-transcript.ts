/**
 * Evidence inside a long agent transcript: the recorded pi sessions cut into chunks, each followed
 * by one session of a generated conversation, so the evidence turns sit throughout a history of
 * hundreds of thousands of tokens (the reference's 100k–500k). It ends with a conversation session
 * rather than agent work: a recorded agent turn can be larger than a small window on its own, and a
 * question after it would measure that turn, not recall.
 */
import {
  type AgentMessage,
  type AssistantMessage,
  isAssistantMessage,
  isMessageEntry,
  type UserMessage,
} from "@clew/core";
import type { GeneratedConversation } from "./locomo/generate-conversation.js";
import { PI_SESSION_FILES, readPiSession } from "./pi-sessions.js";
import type { ReplayTurn } from "./replay-turn.js";

/**
 * Turns of a recorded session: a turn starts at each user message; each assistant message starts
 * a step, and the messages after it (tool results, a user's bash run) join that step. Left out:
 * messages before the first user message (there is no prompt to replay them with), and an
 * assistant message right after an assistant message that asked for no tools (the model is never
 * called again with nothing new; replaying it would put two assistant messages side by side).
 */
export function turnsOfMessages(messages: readonly AgentMessage[]): ReplayTurn[] {
  const turns: ReplayTurn[] = [];
  let previous: AgentMessage | undefined;
  for (const message of messages) {
    const role = (message as { role?: unknown }).role;
    const afterFinalAnswer =
      previous !== undefined && isAssistantMessage(previous) && !hasToolCalls(previous);
    if (role === "user") {
      turns.push({ prompt: message as UserMessage, steps: [] });
    } else if (!(role === "assistant" && afterFinalAnswer)) {
      const turn = turns.at(-1);
      const step = turn?.steps.at(-1);
      if (turn !== undefined && (role === "assistant" || step === undefined)) turn.steps.push([message]);
      else step?.push(message);
    }
    previous = message;
  }
  return turns.filter((turn) => turn.steps.length > 0);
}

function hasToolCalls(message: AssistantMessage): boolean {
  return message.content.some((block) => block.type === "toolCall");
}

/** Both pi sessions' messages as replay turns; throws `TranscriptReadError` when one is missing. */
export async function piSessionTurns(directory: string): Promise<ReplayTurn[]> {
  const turns: ReplayTurn[] = [];
  for (const file of PI_SESSION_FILES) {
    const imported = await readPiSession(file, directory);
    turns.push(...turnsOfMessages(imported.entries.filter(isMessageEntry).map((entry) => entry.message)));
  }
  return turns;
}

/**
 * The agent turns cut into as many chunks as the conversation has sessions, each chunk followed by
 * one conversation session (its A/B pairs as turns): agent, session 1, agent, session 2, ….
 */
export function interleaveConversation(
  agentTurns: readonly ReplayTurn[],
  conversation: GeneratedConversation,
): ReplayTurn[] {
  const sessions = new Map<number, ReplayTurn[]>();
  for (let index = 0; index + 1 < conversation.turns.length; index += 2) {
    const prompt = conversation.turns[index];
    const reply = conversation.turns[index + 1];
    if (prompt === undefined || reply === undefined || prompt.message.role !== "user") continue;
    const list = sessions.get(prompt.session) ?? [];
    list.push({ prompt: prompt.message, steps: [[reply.message]] });
    sessions.set(prompt.session, list);
  }
  const ordered = [...sessions.entries()].sort(([left], [right]) => left - right).map(([, turns]) => turns);
  const chunkSize = Math.ceil(agentTurns.length / Math.max(1, ordered.length));
  const result: ReplayTurn[] = [];
  for (let chunk = 0; chunk < Math.max(1, ordered.length); chunk++) {
    result.push(...agentTurns.slice(chunk * chunkSize, (chunk + 1) * chunkSize));
    result.push(...(ordered[chunk] ?? []));
  }
  return result;
}
