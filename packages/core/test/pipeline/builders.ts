import type {
  AgentMessage,
  AssistantMessage,
  ImageContent,
  TextContent,
  ThinkingContent,
  ToolCall,
  ToolResultMessage,
  UserMessage,
} from "../../src/messages.js";

export type StopReason = AssistantMessage["stopReason"];

export function user(text: string, timestamp = 1): UserMessage {
  return { role: "user", content: text, timestamp };
}

export function call(id: string, name = "read", args: Record<string, unknown> = { path: "a.txt" }): ToolCall {
  return { type: "toolCall", id, name, arguments: args };
}

export function text(value: string): TextContent {
  return { type: "text", text: value };
}

export function thinking(value: string): ThinkingContent {
  return { type: "thinking", thinking: value };
}

export function image(): ImageContent {
  return { type: "image", data: "aGVsbG8=", mimeType: "image/png" };
}

export function assistant(
  content: AssistantMessage["content"],
  options: { stopReason?: StopReason; timestamp?: number; api?: string } = {},
): AssistantMessage {
  const hasCalls = content.some((block) => block.type === "toolCall");
  return {
    role: "assistant",
    content,
    api: options.api ?? "anthropic-messages",
    provider: "anthropic",
    model: "claude-test",
    usage: {
      input: 1,
      output: 1,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: 2,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
    },
    stopReason: options.stopReason ?? (hasCalls ? "toolUse" : "stop"),
    timestamp: options.timestamp ?? 2,
  };
}

export function result(
  toolCallId: string,
  body: string | ToolResultMessage["content"] = "ok",
  options: { toolName?: string; isError?: boolean; timestamp?: number } = {},
): ToolResultMessage {
  return {
    role: "toolResult",
    toolCallId,
    toolName: options.toolName ?? "read",
    content: typeof body === "string" ? [text(body)] : body,
    isError: options.isError ?? false,
    timestamp: options.timestamp ?? 3,
  };
}

export function bashExecution(command: string, output: string, exitCode = 0): AgentMessage {
  const message = {
    role: "bashExecution",
    command,
    output,
    exitCode,
    cancelled: false,
    truncated: false,
    timestamp: 4,
  };
  return message as unknown as AgentMessage;
}

/** Roles in order, with tool ids, for compact assertions: `user`, `assistant[a,b]`, `toolResult(a)`. */
export function shape(messages: readonly AgentMessage[]): string[] {
  return messages.map((message) => {
    if (message.role === "assistant") {
      const ids = message.content.flatMap((block) => (block.type === "toolCall" ? [block.id] : []));
      return ids.length > 0 ? `assistant[${ids.join(",")}]` : "assistant";
    }
    if (message.role === "toolResult") return `toolResult(${message.toolCallId})`;
    return message.role;
  });
}

/** A deep, frozen copy, so a test fails loudly if code under test mutates its input. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  }
  return value;
}
