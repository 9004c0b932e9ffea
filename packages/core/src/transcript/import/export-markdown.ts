/**
 * Renders a transcript branch as Markdown for people to read: one section per message, tool
 * calls with their JSON arguments, tool output in code fences long enough never to be closed by
 * the output itself, thinking folded away in `<details>`. Host-only entries (`custom`) are left out.
 */
import type { SessionHeader, TranscriptEntry } from "../entries.js";
import { isRecordObject, stringField } from "./import-log.js";

/** Renders `branch` (root first). Never throws for unexpected shapes; it renders what it finds. */
export function renderMarkdownTranscript(header: SessionHeader, branch: readonly TranscriptEntry[]): string {
  const sections = [headerSection(header)];
  for (const entry of branch) {
    const section = entrySection(entry);
    if (section !== undefined) sections.push(section);
  }
  return `${sections.join("\n\n")}\n`;
}

function headerSection(header: SessionHeader): string {
  const lines = [`# Session ${header.id}`, "", `- Started: ${header.timestamp}`];
  if (typeof header.cwd === "string") lines.push(`- Working directory: \`${header.cwd}\``);
  const importedFrom = isRecordObject(header.importedFrom) ? header.importedFrom : undefined;
  const format = importedFrom === undefined ? undefined : stringField(importedFrom, "format");
  if (format !== undefined) lines.push(`- Imported from: ${format}`);
  return lines.join("\n");
}

function entrySection(entry: TranscriptEntry): string | undefined {
  switch (entry.type) {
    case "message":
      return isRecordObject(entry.message) ? messageSection(entry.message, entry.timestamp) : undefined;
    case "compaction":
      return `## Compaction · ${entry.timestamp}\n\n${String(entry.summary ?? "")}`;
    case "branch_summary":
      return `## Branch summary · ${entry.timestamp}\n\n${String(entry.summary ?? "")}`;
    case "custom_message":
      return `## ${String(entry.customType ?? "Extension")} message · ${entry.timestamp}\n\n${textOfContent(entry.content)}`;
    case "model_change":
      return `_Model changed to ${String(entry.provider ?? "?")}/${String(entry.modelId ?? "?")}_`;
    case "thinking_level_change":
      return `_Thinking level set to ${String(entry.thinkingLevel ?? "?")}_`;
    case "custom":
      return undefined;
    default:
      return `_${entry.type} entry_`;
  }
}

function messageSection(message: Record<string, unknown>, timestamp: string): string {
  switch (message.role) {
    case "user":
      return `## User · ${timestamp}\n\n${textOfContent(message.content)}`;
    case "assistant":
      return assistantSection(message, timestamp);
    case "toolResult": {
      const status = message.isError === true ? " (error)" : "";
      const name = stringField(message, "toolName") ?? "tool";
      return `### Tool result · ${name}${status}\n\n${fenced(textOfContent(message.content))}`;
    }
    case "bashExecution":
      return `## Shell · ${timestamp}\n\n${fenced(bashExecutionText(message))}`;
    default:
      return `## ${String(message.role)} · ${timestamp}\n\n${textOfContent(message.content) || fenced(JSON.stringify(message, null, 2), "json")}`;
  }
}

function assistantSection(message: Record<string, unknown>, timestamp: string): string {
  const model = [stringField(message, "provider"), stringField(message, "model")].filter(Boolean).join("/");
  const parts = [`## Assistant${model ? ` · ${model}` : ""} · ${timestamp}`];
  const blocks = Array.isArray(message.content) ? message.content.filter(isRecordObject) : [];
  for (const block of blocks) {
    if (block.type === "text") parts.push(stringField(block, "text") ?? "");
    if (block.type === "thinking" && stringField(block, "thinking")) {
      parts.push(`<details><summary>Thinking</summary>\n\n${stringField(block, "thinking")}\n\n</details>`);
    }
    if (block.type === "toolCall") {
      const call = `**Tool call** \`${stringField(block, "name") ?? "?"}\` (\`${stringField(block, "id") ?? "?"}\`)`;
      parts.push(`${call}\n\n${fenced(JSON.stringify(block.arguments ?? {}, null, 2), "json")}`);
    }
  }
  const stopReason = stringField(message, "stopReason");
  if (stopReason === "error" || stopReason === "aborted") {
    parts.push(`_Stopped: ${stopReason}${message.errorMessage ? ` (${String(message.errorMessage)})` : ""}_`);
  }
  return parts.join("\n\n");
}

/** A code fence one backtick longer than the longest backtick run inside `text`. */
function fenced(text: string, language = ""): string {
  const longestRun = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = "`".repeat(Math.max(3, longestRun + 1));
  return `${fence}${language}\n${text}\n${fence}`;
}

/** Text blocks joined by newlines; an image becomes an `[image: <mime>]` marker. */
export function textOfContent(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter(isRecordObject)
    .map((block) => {
      if (block.type === "text") return stringField(block, "text") ?? "";
      if (block.type === "image") return `[image: ${stringField(block, "mimeType") ?? "unknown"}]`;
      return "";
    })
    .filter((text) => text !== "")
    .join("\n");
}

/** How a user-run shell command reads: the command, its output and a non-zero exit code. */
export function bashExecutionText(message: Record<string, unknown>): string {
  const command = stringField(message, "command") ?? "";
  const output = stringField(message, "output") ?? "";
  const exitCode =
    typeof message.exitCode === "number" && message.exitCode !== 0 ? `\n(exit code ${message.exitCode})` : "";
  return `$ ${command}\n${output}${exitCode}`;
}
