/**
 * Writes a transcript out in another shape. Pure: returns the text; the caller writes it.
 *
 * - `clew`: Clew's JSONL (header line, then one entry per line, newline-terminated). Byte-stable:
 *   importing the output gives back the same header and entries, and exporting those again gives
 *   the same bytes.
 * - `pi`: the same JSONL with the header version set to 3, which pi reads as it is (pi ignores
 *   the fields only Clew writes, such as a compaction's `summarizer`).
 * - `openai-messages`: a JSON array of OpenAI Chat Completions messages for the active branch
 *   (the path from the newest entry back to the root). Thinking is left out; a compaction adds
 *   nothing because every message of the branch is already there.
 * - `markdown`: a readable transcript of the active branch.
 */
import type { AgentMessage } from "../../messages.js";
import type { SessionHeader, TranscriptEntry } from "../entries.js";
import { parentChain } from "../parent-chain.js";
import { bashExecutionText, renderMarkdownTranscript, textOfContent } from "./export-markdown.js";
import { isRecordObject, stringField } from "./import-log.js";

export const TRANSCRIPT_EXPORT_FORMATS = ["clew", "pi", "openai-messages", "markdown"] as const;

export type TranscriptExportFormat = (typeof TRANSCRIPT_EXPORT_FORMATS)[number];

export function isTranscriptExportFormat(value: string): value is TranscriptExportFormat {
  return (TRANSCRIPT_EXPORT_FORMATS as readonly string[]).includes(value);
}

export interface OpenAIChatMessage {
  role: "user" | "assistant" | "tool";
  content: string | OpenAIContentPart[] | null;
  tool_calls?: { id: string; type: "function"; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
}

export type OpenAIContentPart =
  | { type: "text"; text: string }
  | { type: "image_url"; image_url: { url: string } };

/**
 * Renders `header` and `entries` (stored order, all branches) in `format`. Never mutates its
 * input. Throws a `RangeError` for a format it does not know (a caller passing unchecked text
 * should test it with `isTranscriptExportFormat` first).
 */
export function exportTranscript(
  header: SessionHeader,
  entries: readonly TranscriptEntry[],
  format: TranscriptExportFormat,
): string {
  switch (format) {
    case "clew":
      return toJsonLines(header, entries);
    case "pi":
      return toJsonLines({ ...header, version: 3 }, entries);
    case "openai-messages":
      return `${JSON.stringify(toOpenAIMessages(activeBranch(entries)), null, 2)}\n`;
    case "markdown":
      return renderMarkdownTranscript(header, activeBranch(entries));
    default:
      throw new RangeError(
        `Unknown transcript export format "${String(format)}"; use ${TRANSCRIPT_EXPORT_FORMATS.join(", ")}`,
      );
  }
}

function toJsonLines(header: SessionHeader, entries: readonly TranscriptEntry[]): string {
  const lines = [JSON.stringify(header)];
  for (const entry of entries) lines.push(JSON.stringify(entry));
  return `${lines.join("\n")}\n`;
}

/**
 * The path from the newest entry (the leaf) back to the root, root first. A parent that is
 * missing, or a cycle, ends the walk instead of failing it.
 */
export function activeBranch(entries: readonly TranscriptEntry[]): TranscriptEntry[] {
  const byId = new Map(entries.map((entry) => [entry.id, entry]));
  return parentChain(byId, entries.at(-1)?.id ?? null).chain;
}

/** The branch as Chat Completions messages; entries the model never sees are left out. */
export function toOpenAIMessages(branch: readonly TranscriptEntry[]): OpenAIChatMessage[] {
  const messages: OpenAIChatMessage[] = [];
  for (const entry of branch) {
    if (entry.type === "message" && isRecordObject(entry.message)) {
      const converted = convertMessage(entry.message as AgentMessage & Record<string, unknown>);
      if (converted !== undefined) messages.push(converted);
    } else if (entry.type === "custom_message") {
      messages.push({ role: "user", content: textOfContent(entry.content) });
    } else if (entry.type === "branch_summary" && typeof entry.summary === "string") {
      messages.push({ role: "user", content: entry.summary });
    }
  }
  return messages;
}

function convertMessage(message: Record<string, unknown>): OpenAIChatMessage | undefined {
  switch (message.role) {
    case "user":
      return { role: "user", content: userContent(message.content) };
    case "assistant":
      return assistantMessage(message.content);
    case "toolResult":
      return {
        role: "tool",
        tool_call_id: stringField(message, "toolCallId") ?? "",
        content: textOfContent(message.content),
      };
    case "bashExecution":
      return { role: "user", content: bashExecutionText(message) };
    case "custom":
      return { role: "user", content: textOfContent(message.content) };
    case "compactionSummary":
    case "branchSummary":
      return { role: "user", content: stringField(message, "summary") ?? "" };
    default:
      return undefined;
  }
}

function userContent(content: unknown): string | OpenAIContentPart[] {
  if (!Array.isArray(content)) return textOfContent(content);
  const parts: OpenAIContentPart[] = [];
  for (const block of content) {
    if (!isRecordObject(block)) continue;
    if (block.type === "text") parts.push({ type: "text", text: stringField(block, "text") ?? "" });
    if (block.type === "image") {
      const url = `data:${stringField(block, "mimeType") ?? "image/png"};base64,${stringField(block, "data") ?? ""}`;
      parts.push({ type: "image_url", image_url: { url } });
    }
  }
  return parts.every((part) => part.type === "text") ? textOfContent(content) : parts;
}

function assistantMessage(content: unknown): OpenAIChatMessage {
  const blocks = Array.isArray(content) ? content.filter(isRecordObject) : [];
  const text = blocks
    .filter((block) => block.type === "text")
    .map((block) => stringField(block, "text") ?? "")
    .join("\n");
  const toolCalls = blocks
    .filter((block) => block.type === "toolCall")
    .map((block) => ({
      id: stringField(block, "id") ?? "",
      type: "function" as const,
      function: { name: stringField(block, "name") ?? "", arguments: JSON.stringify(block.arguments ?? {}) },
    }));
  const message: OpenAIChatMessage = { role: "assistant", content: text === "" ? null : text };
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  return message;
}
