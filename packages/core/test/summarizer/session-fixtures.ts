/**
 * Test inputs: the two real pi sessions in ../shared/data (read in place, never copied) and small
 * builders for the message shapes the summarizers see.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { AgentMessage, AssistantMessage, ToolResultMessage } from "../../src/index.js";
import { assistantMessage } from "../support.js";

const SESSIONS_DIR = fileURLToPath(new URL("../../../../../shared/data/pi-sessions/", import.meta.url));

export const PI_SESSION_NAMES = ["before-compaction", "large-session"] as const;
export type PiSessionName = (typeof PI_SESSION_NAMES)[number];

const loaded = new Map<PiSessionName, AgentMessage[]>();

/** The `message` of every `type: "message"` line of a pi session, in file order. */
export function loadPiSessionMessages(name: PiSessionName): AgentMessage[] {
  const cached = loaded.get(name);
  if (cached !== undefined) return cached;
  const messages: AgentMessage[] = [];
  const lines = readFileSync(`${SESSIONS_DIR}${name}.jsonl`, "utf8").split("\n");
  for (const line of lines) {
    if (line.trim().length === 0) continue;
    const entry = JSON.parse(line) as { type?: string; message?: AgentMessage };
    if (entry.type === "message" && entry.message !== undefined) messages.push(entry.message);
  }
  loaded.set(name, messages);
  return messages;
}

export function toolCallMessage(
  name: string,
  args: Record<string, unknown>,
  id = `call_${name}1`,
): AssistantMessage {
  return {
    ...assistantMessage(""),
    content: [{ type: "toolCall", id, name, arguments: args }],
    stopReason: "toolUse",
  };
}

export function toolResultMessage(
  toolName: string,
  text: string,
  options: { isError?: boolean; toolCallId?: string } = {},
): ToolResultMessage {
  return {
    role: "toolResult",
    toolCallId: options.toolCallId ?? `call_${toolName}1`,
    toolName,
    content: [{ type: "text", text }],
    isError: options.isError ?? false,
    timestamp: 3,
  };
}

/** A pi `bashExecution` message (a custom message role, not in the core union). */
export function bashExecutionMessage(command: string, output: string, exitCode = 0): AgentMessage {
  return {
    role: "bashExecution",
    command,
    output,
    exitCode,
    cancelled: false,
    truncated: false,
    timestamp: 4,
  } as unknown as AgentMessage;
}
