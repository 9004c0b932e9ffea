/**
 * The first pipeline step: turn a stored transcript's messages into the three roles a model reads
 * (user, assistant, toolResult). Stored transcripts also hold app messages (pi's `bashExecution`
 * for `!` commands, compaction and branch summaries, extension `custom` messages); the known ones
 * become user text, anything else is dropped because no provider accepts an unknown role.
 */
import type {
  AgentMessage,
  AssistantMessage,
  ImageContent,
  TextContent,
  ThinkingContent,
  ToolCall,
  ToolResultMessage,
  UserMessage,
} from "../messages.js";

/** Custom roles that become user messages; every other role outside user/assistant/toolResult is dropped. */
export const KNOWN_CUSTOM_ROLES = ["bashExecution", "compactionSummary", "branchSummary", "custom"] as const;

/** pi's record of a command the user ran with `!` (not an agent tool call). */
export interface BashExecutionMessage {
  role: "bashExecution";
  command: string;
  output: string;
  exitCode?: number | null;
  cancelled?: boolean;
  truncated?: boolean;
  /** pi's `!!` prefix: the user ran the command without sharing it with the model. */
  excludeFromContext?: boolean;
  timestamp: number;
}

type UnknownRecord = Record<string, unknown>;
type UserBlock = TextContent | ImageContent;
type AssistantBlock = TextContent | ThinkingContent | ToolCall;

/**
 * Converts stored messages into model-visible ones:
 * - `bashExecution` → a user message showing the command, its output and a non-zero exit code
 *   (dropped when `excludeFromContext` is set);
 * - `compactionSummary` / `branchSummary` with a string `summary` → a user message with the summary;
 * - `custom` with string or block `content` → a user message with that content;
 * - other roles, non-objects and messages whose content has the wrong type → dropped;
 * - `toolResult.details` → removed (it is UI data, never sent to models);
 * - assistant `toolCall` blocks without an id, a name or an arguments object → removed, and an
 *   assistant message left without content → dropped; unknown content blocks are removed.
 * Never throws and never mutates its input; unchanged messages are returned as the same objects.
 */
export function convertCustomMessages(messages: readonly unknown[]): AgentMessage[] {
  const output: AgentMessage[] = [];
  for (const message of messages) {
    const converted = convertOnce(message);
    if (converted !== undefined) output.push(converted);
  }
  return output;
}

// Stored messages are immutable, so a message converts the same way every turn. Remembering the
// result keeps the converted object identical across turns, which lets per-message token caches
// hit instead of recounting the whole history on every model call.
const converted = new WeakMap<object, AgentMessage | null>();

function convertOnce(message: unknown): AgentMessage | undefined {
  if (typeof message !== "object" || message === null) return convertMessage(message);
  const cached = converted.get(message);
  if (cached !== undefined) return cached ?? undefined;
  const result = convertMessage(message);
  converted.set(message, result ?? null);
  return result;
}

/**
 * Removes thinking blocks from assistant messages and drops assistant messages left empty.
 * Never mutates its input.
 */
export function dropThinkingBlocks(messages: readonly AgentMessage[]): AgentMessage[] {
  const output: AgentMessage[] = [];
  for (const message of messages) {
    if (message.role !== "assistant" || !message.content.some((block) => block.type === "thinking")) {
      output.push(message);
      continue;
    }
    const content = message.content.filter((block) => block.type !== "thinking");
    if (content.length > 0) output.push({ ...message, content });
  }
  return output;
}

/** The user-message text for a `bashExecution` message. */
export function bashExecutionText(message: BashExecutionMessage): string {
  const output = message.output.replace(/\n+$/, "");
  const fence = codeFenceFor(output);
  const lines = [`Ran \`${message.command}\``];
  lines.push(output.length > 0 ? `${fence}\n${output}\n${fence}` : "(no output)");
  if (message.cancelled) lines.push("(command cancelled)");
  else if (typeof message.exitCode === "number" && message.exitCode !== 0) {
    lines.push(`(exit code ${message.exitCode})`);
  }
  if (message.truncated) lines.push("(output truncated)");
  return lines.join("\n");
}

function convertMessage(message: unknown): AgentMessage | undefined {
  if (!isRecord(message)) return undefined;
  switch (message.role) {
    case "user":
      return convertUser(message);
    case "assistant":
      return convertAssistant(message);
    case "toolResult":
      return convertToolResult(message);
    case "bashExecution":
      return convertBashExecution(message);
    case "compactionSummary":
      return summaryMessage(
        message,
        "The conversation history before this point was compacted into the following summary:",
      );
    case "branchSummary":
      return summaryMessage(message, "Summary of a branch of this conversation that was left:");
    case "custom":
      return convertCustom(message);
    default:
      return undefined;
  }
}

function convertUser(message: UnknownRecord): UserMessage | undefined {
  const content = message.content;
  if (typeof content === "string") return message as unknown as UserMessage;
  if (!Array.isArray(content)) return undefined;
  const blocks = content.filter(isUserBlock);
  if (blocks.length === content.length) return message as unknown as UserMessage;
  return { ...(message as unknown as UserMessage), content: blocks };
}

function convertAssistant(message: UnknownRecord): AssistantMessage | undefined {
  const content = message.content;
  if (!Array.isArray(content)) return undefined;
  const blocks: AssistantBlock[] = [];
  for (const block of content) {
    const kept = assistantBlock(block);
    if (kept !== undefined) blocks.push(kept);
  }
  if (blocks.length === 0) return undefined;
  const unchanged =
    blocks.length === content.length && blocks.every((block, index) => block === content[index]);
  if (unchanged) return message as unknown as AssistantMessage;
  return { ...(message as unknown as AssistantMessage), content: blocks };
}

function assistantBlock(block: unknown): AssistantBlock | undefined {
  if (!isRecord(block)) return undefined;
  if (block.type === "text" && typeof block.text === "string") return block as unknown as TextContent;
  if (block.type === "thinking" && typeof block.thinking === "string")
    return block as unknown as ThinkingContent;
  if (block.type !== "toolCall") return undefined;
  if (typeof block.id !== "string" || block.id.length === 0) return undefined;
  if (typeof block.name !== "string" || block.name.trim().length === 0) return undefined;
  if (!isRecord(block.arguments)) return undefined;
  const name = block.name.trim();
  const toolCall = block as unknown as ToolCall;
  return name === block.name ? toolCall : { ...toolCall, name };
}

function convertToolResult(message: UnknownRecord): ToolResultMessage | undefined {
  if (typeof message.toolCallId !== "string" || message.toolCallId.length === 0) return undefined;
  if (!Array.isArray(message.content)) return undefined;
  const blocks = message.content.filter(isUserBlock);
  const wellFormed =
    blocks.length === message.content.length &&
    typeof message.toolName === "string" &&
    typeof message.isError === "boolean" &&
    !("details" in message);
  if (wellFormed) return message as unknown as ToolResultMessage;
  const { details: _details, ...rest } = message;
  return {
    ...(rest as unknown as ToolResultMessage),
    toolName: typeof message.toolName === "string" ? message.toolName : "unknown",
    isError: message.isError === true,
    content: blocks,
  };
}

function convertBashExecution(message: UnknownRecord): UserMessage | undefined {
  if (typeof message.command !== "string" || message.excludeFromContext === true) return undefined;
  const execution: BashExecutionMessage = {
    role: "bashExecution",
    command: message.command,
    output: typeof message.output === "string" ? message.output : "",
    exitCode: typeof message.exitCode === "number" ? message.exitCode : undefined,
    cancelled: message.cancelled === true,
    truncated: message.truncated === true,
    timestamp: timestampOf(message),
  };
  return { role: "user", content: bashExecutionText(execution), timestamp: execution.timestamp };
}

function summaryMessage(message: UnknownRecord, heading: string): UserMessage | undefined {
  if (typeof message.summary !== "string") return undefined;
  const text = `${heading}\n<summary>\n${message.summary}\n</summary>`;
  return { role: "user", content: text, timestamp: timestampOf(message) };
}

function convertCustom(message: UnknownRecord): UserMessage | undefined {
  const content = message.content;
  if (typeof content === "string") return { role: "user", content, timestamp: timestampOf(message) };
  if (!Array.isArray(content)) return undefined;
  return { role: "user", content: content.filter(isUserBlock), timestamp: timestampOf(message) };
}

function isUserBlock(block: unknown): block is UserBlock {
  if (!isRecord(block)) return false;
  if (block.type === "text") return typeof block.text === "string";
  return block.type === "image" && typeof block.data === "string" && typeof block.mimeType === "string";
}

// A fence one backtick longer than the longest backtick run, so command output cannot close it.
function codeFenceFor(text: string): string {
  let longest = 0;
  for (const run of text.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  return "`".repeat(Math.max(3, longest + 1));
}

function timestampOf(message: UnknownRecord): number {
  return typeof message.timestamp === "number" ? message.timestamp : 0;
}

function isRecord(value: unknown): value is UnknownRecord {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
