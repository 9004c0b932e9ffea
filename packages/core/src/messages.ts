/**
 * The message shapes every context engine receives. They are pi's `AgentMessage` union
 * (`@mariozechner/pi-agent-core` over `@mariozechner/pi-ai`): a user message, an assistant
 * message with text, thinking and toolCall blocks, and a toolResult message. OpenClaw engines
 * receive the same objects, which is what lets an engine run on either host unchanged.
 */
import type { AgentMessage } from "@mariozechner/pi-agent-core";
import type {
  AssistantMessage,
  ImageContent,
  TextContent,
  ThinkingContent,
  ToolCall,
  ToolResultMessage,
  Usage,
  UserMessage,
} from "@mariozechner/pi-ai";

export type {
  AgentMessage,
  AssistantMessage,
  ImageContent,
  TextContent,
  ThinkingContent,
  ToolCall,
  ToolResultMessage,
  Usage,
  UserMessage,
};

/** Narrowing helpers that work on the open `AgentMessage` union (custom messages included). */
export function isUserMessage(message: AgentMessage): message is UserMessage {
  return typeof message === "object" && message !== null && "role" in message && message.role === "user";
}

export function isAssistantMessage(message: AgentMessage): message is AssistantMessage {
  return typeof message === "object" && message !== null && "role" in message && message.role === "assistant";
}

export function isToolResultMessage(message: AgentMessage): message is ToolResultMessage {
  return (
    typeof message === "object" && message !== null && "role" in message && message.role === "toolResult"
  );
}

/** A usage record with every count at zero: for messages no provider answered (replays, errors). */
export function emptyUsage(): Usage {
  return {
    input: 0,
    output: 0,
    cacheRead: 0,
    cacheWrite: 0,
    totalTokens: 0,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
  };
}
