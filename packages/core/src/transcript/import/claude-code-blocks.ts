/**
 * Converts the content of Claude Code lines (Anthropic Messages API blocks) into pi message
 * content. Blocks pi has no shape for (server tool use, web search results, documents, ...) are
 * dropped and reported through `report`, never silently.
 */
import type {
  AssistantMessage,
  ImageContent,
  StopReason,
  TextContent,
  ThinkingContent,
  ToolCall,
  Usage,
} from "@mariozechner/pi-ai";
import { isRecordObject, stringField } from "./import-log.js";

/** Called for each block that could not be kept, with its block type. */
export type DroppedBlockReporter = (blockType: string, detail: string) => void;

type AssistantBlock = AssistantMessage["content"][number];

export function convertTextOrImage(
  block: unknown,
  report: DroppedBlockReporter,
): TextContent | ImageContent | undefined {
  if (!isRecordObject(block)) {
    report("invalid", "content block is not an object");
    return undefined;
  }
  const type = stringField(block, "type") ?? "untyped";
  if (type === "text") return { type: "text", text: stringField(block, "text") ?? "" };
  if (type === "image") return convertImage(block, report);
  report(type, `content block of type "${type}" has no pi equivalent`);
  return undefined;
}

function convertImage(
  block: Record<string, unknown>,
  report: DroppedBlockReporter,
): TextContent | ImageContent | undefined {
  const source = isRecordObject(block.source) ? block.source : {};
  const data = stringField(source, "data");
  const mimeType = stringField(source, "media_type");
  if (source.type === "base64" && data !== undefined && mimeType !== undefined) {
    return { type: "image", data, mimeType };
  }
  const url = stringField(source, "url");
  // pi images are inline data; a linked image is kept as a reference the reader can follow.
  if (url !== undefined) return { type: "text", text: `[image: ${url}]` };
  report("image", "image block without base64 data or a url");
  return undefined;
}

/** Tool result content: a string or a list of text/image blocks. */
export function convertToolResultContent(
  content: unknown,
  report: DroppedBlockReporter,
): (TextContent | ImageContent)[] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  if (content === undefined || content === null) return [];
  if (!Array.isArray(content)) {
    report("invalid", "tool_result content is neither a string nor a list; kept as JSON text");
    return [{ type: "text", text: JSON.stringify(content) }];
  }
  return content.flatMap((block) => convertTextOrImage(block, report) ?? []);
}

export function convertAssistantBlock(
  block: unknown,
  report: DroppedBlockReporter,
): AssistantBlock | undefined {
  if (!isRecordObject(block)) {
    report("invalid", "content block is not an object");
    return undefined;
  }
  const type = stringField(block, "type") ?? "untyped";
  if (type === "text") return { type: "text", text: stringField(block, "text") ?? "" };
  if (type === "thinking") {
    const thinking: ThinkingContent = { type: "thinking", thinking: stringField(block, "thinking") ?? "" };
    const signature = stringField(block, "signature");
    if (signature !== undefined) thinking.thinkingSignature = signature;
    return thinking;
  }
  if (type === "redacted_thinking") {
    return {
      type: "thinking",
      thinking: "",
      thinkingSignature: stringField(block, "data") ?? "",
      redacted: true,
    };
  }
  if (type === "tool_use") {
    const toolCall: ToolCall = {
      type: "toolCall",
      id: stringField(block, "id") ?? "",
      name: stringField(block, "name") ?? "unknown",
      arguments: isRecordObject(block.input) ? block.input : {},
    };
    return toolCall;
  }
  report(type, `assistant block of type "${type}" has no pi equivalent`);
  return undefined;
}

/** Appends streamed blocks, leaving out a block the message already holds (replayed lines). */
export function appendAssistantBlocks(target: AssistantBlock[], blocks: readonly AssistantBlock[]): void {
  for (const block of blocks) {
    const serialized = JSON.stringify(block);
    const present = target.some((existing) =>
      block.type === "toolCall" && existing.type === "toolCall"
        ? existing.id === block.id
        : JSON.stringify(existing) === serialized,
    );
    if (!present) target.push(block);
  }
}

export function convertUsage(usage: unknown): Usage {
  const source = isRecordObject(usage) ? usage : {};
  const input = tokenCount(source.input_tokens);
  const output = tokenCount(source.output_tokens);
  const cacheRead = tokenCount(source.cache_read_input_tokens);
  const cacheWrite = tokenCount(source.cache_creation_input_tokens);
  return {
    input,
    output,
    cacheRead,
    cacheWrite,
    totalTokens: input + output + cacheRead + cacheWrite,
    // Claude Code does not record prices; zero cost means "unknown", as in pi for free models.
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
  };
}

function tokenCount(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) ? value : 0;
}

/** Anthropic `stop_reason` → pi `StopReason`; a missing one is inferred from the content. */
export function convertStopReason(stopReason: string | undefined, hasToolCall: boolean): StopReason {
  switch (stopReason) {
    case "tool_use":
      return "toolUse";
    case "max_tokens":
    case "model_context_window_exceeded":
      return "length";
    case "refusal":
      return "error";
    case undefined:
      return hasToolCall ? "toolUse" : "stop";
    default:
      return "stop";
  }
}

/** The text of a user line's content (string, or its text blocks joined). */
export function plainText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter((block) => isRecordObject(block) && block.type === "text")
    .map((block) => stringField(block as Record<string, unknown>, "text") ?? "")
    .join("\n");
}
