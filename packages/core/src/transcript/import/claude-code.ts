/**
 * Converts a Claude Code session file (`~/.claude/projects/<project>/<session>.jsonl`) into Clew
 * transcript entries.
 *
 * - `user` lines: each `tool_result` block becomes one `toolResult` message (tool name taken from
 *   the matching `tool_use`, `"unknown"` when none was seen); the rest becomes one user message.
 * - `assistant` lines: Claude Code writes one line per content block of a streamed response, all
 *   sharing `message.id`. Lines of one response are merged into one assistant message when each
 *   continues the previous one (its parent is the response, or a tool result of it). The last
 *   line's usage and stop reason win.
 * - `system` lines with `subtype: "compact_boundary"` become compaction entries. The summary is
 *   the next conversation line when it is Claude Code's summary (`isCompactSummary`, "This
 *   session is being continued...", or a `summary` line); that line is then not kept as a
 *   message. `firstKeptEntryId` is the entry after the compaction (its own id when none follows),
 *   so nothing from before the boundary is replayed raw, as in Claude Code.
 * - `summary` lines elsewhere are session titles; they go to `header.importedFrom.summaries`.
 * - Skipped, and counted by reason: `progress`, `file-history-snapshot`, other system lines
 *   (`system:<subtype>`), subagent lines (`isSidechain`, they belong to the subagent's own
 *   session), repeated uuids (replayed lines) and any other line type.
 *
 * Ids: an entry keeps its line's `uuid`; a line that yields several entries adds `-1`, `-2`, ...
 * Parents follow `parentUuid` (`logicalParentUuid` across a compact boundary). A parent that was
 * skipped or merged is replaced by the entry the line's chain really continues from, so
 * branches Claude Code wrote (edits, retries) stay branches and the chain never passes through a
 * dropped line.
 */
import type { AssistantMessage, ToolResultMessage, UserMessage } from "@mariozechner/pi-ai";
import type { CompactionEntry, MessageEntry, SessionHeader, TranscriptEntry } from "../entries.js";
import {
  appendAssistantBlocks,
  convertAssistantBlock,
  convertStopReason,
  convertTextOrImage,
  convertToolResultContent,
  convertUsage,
  type DroppedBlockReporter,
  plainText,
} from "./claude-code-blocks.js";
import {
  type ConvertedTranscript,
  type ConvertOptions,
  isRecordObject,
  type JsonRecord,
  stringField,
} from "./import-log.js";
import { derivedEntryId } from "./pi.js";

/** The compaction summary when Claude Code's summary is not in the file. */
export const MISSING_COMPACT_SUMMARY =
  "Claude Code compacted the conversation here; its summary was not found in the imported file.";

const CONTINUATION_PREFIX = "This session is being continued from a previous conversation";

interface OpenResponse {
  messageId: string;
  message: AssistantMessage;
  /** The entry the response's next line would continue from (the message or its last tool result). */
  tailId: string;
  stopReason: string | undefined;
}

interface PendingCompaction {
  entry: CompactionEntry;
  awaitingSummary: boolean;
  awaitingFirstKept: boolean;
}

/**
 * Converts parsed Claude Code lines. Never throws; lines and blocks it cannot keep are counted in
 * `options.log.skipped` and described in `options.log.issues`.
 */
export function convertClaudeCodeTranscript(
  records: readonly JsonRecord[],
  options: ConvertOptions,
): ConvertedTranscript {
  const conversion = new ClaudeCodeConversion(options);
  for (const record of records) conversion.convertLine(record);
  return conversion.finish();
}

class ClaudeCodeConversion {
  private readonly entries: TranscriptEntry[] = [];
  private readonly ids = new Set<string>();
  private readonly seenUuids = new Set<string>();
  /** For each line uuid: the entry a child of that line attaches to (null: a root). */
  private readonly attachIdOfUuid = new Map<string, string | null>();
  private readonly toolNames = new Map<string, string>();
  private readonly titles: { summary: string; leafUuid?: string }[] = [];
  private openResponse: OpenResponse | undefined;
  private compaction: PendingCompaction | undefined;
  private sessionId: string | undefined;
  private cwd: string | undefined;
  private firstTimestamp: string | undefined;

  constructor(private readonly options: ConvertOptions) {}

  convertLine(record: JsonRecord): void {
    const { value } = record;
    const type = stringField(value, "type") ?? "untyped";
    const uuid = stringField(value, "uuid");
    if (uuid !== undefined && this.seenUuids.has(uuid)) {
      this.options.log.skip("duplicate-uuid");
      return;
    }
    if (uuid !== undefined) this.seenUuids.add(uuid);
    const message = isRecordObject(value.message) ? value.message : undefined;
    if (type === "summary") {
      this.convertSummary(record);
    } else if (value.isSidechain === true) {
      this.skipLine(record, "sidechain");
    } else if ((type === "user" || type === "assistant") && message === undefined) {
      this.options.log.issue(record.line, `${type} line without a message object; skipped`);
      this.skipLine(record, "invalid-line");
    } else if (type === "user" && message !== undefined) {
      this.noteSessionFields(value);
      this.convertUser(record, message);
    } else if (type === "assistant" && message !== undefined) {
      this.noteSessionFields(value);
      this.convertAssistant(record, message);
    } else if (type === "system" && value.subtype === "compact_boundary") {
      this.noteSessionFields(value);
      this.convertCompactBoundary(record);
    } else {
      this.skipLine(
        record,
        type === "system" ? `system:${stringField(value, "subtype") ?? "unknown"}` : type,
      );
    }
  }

  finish(): ConvertedTranscript {
    if (this.compaction?.awaitingFirstKept) this.compaction.entry.firstKeptEntryId = this.compaction.entry.id;
    const { options } = this;
    const importedFrom: Record<string, unknown> = { format: "claude-code", sourceName: options.sourceName };
    if (this.sessionId !== undefined) importedFrom.sessionId = this.sessionId;
    if (this.titles.length > 0) importedFrom.summaries = this.titles;
    const header: SessionHeader = {
      type: "session",
      version: 3,
      id: options.sessionId ?? this.sessionId ?? derivedEntryId(options.sourceName, 0, new Set()),
      timestamp: this.firstTimestamp ?? new Date(options.now()).toISOString(),
    };
    if (this.cwd !== undefined) header.cwd = this.cwd;
    header.importedFrom = importedFrom;
    return { header, entries: this.entries };
  }

  private noteSessionFields(value: Record<string, unknown>): void {
    this.sessionId ??= stringField(value, "sessionId");
    this.cwd ??= stringField(value, "cwd");
    this.firstTimestamp ??= stringField(value, "timestamp");
  }

  private convertUser(record: JsonRecord, message: Record<string, unknown>): void {
    const { value, line } = record;
    if (this.takeCompactSummary(value, message)) return;
    let attachId = this.resolveParent(stringField(value, "parentUuid"), line);
    const timestamp = this.entryTimestamp(value, line);
    const report = this.blockReporter(line);
    const content = message.content;
    const blocks = Array.isArray(content) ? content : [];
    const userBlocks: UserMessage["content"] = [];
    let emitted = 0;
    for (const block of blocks) {
      if (isRecordObject(block) && block.type === "tool_result") {
        const toolResult = this.toolResultMessage(block, timestamp, line);
        attachId = this.emitMessage(record, emitted++, attachId, timestamp, toolResult);
        continue;
      }
      const converted = convertTextOrImage(block, report);
      if (converted !== undefined) userBlocks.push(converted);
    }
    if (typeof content === "string" || userBlocks.length > 0) {
      const userMessage: UserMessage = {
        role: "user",
        content: typeof content === "string" ? content : userBlocks,
        timestamp: Date.parse(timestamp),
      };
      attachId = this.emitMessage(record, emitted++, attachId, timestamp, userMessage);
    } else if (emitted === 0) {
      this.options.log.issue(line, "user line with no content that could be kept; skipped");
      this.options.log.skip("empty-user-line");
    }
    this.alias(value, attachId);
  }

  private toolResultMessage(
    block: Record<string, unknown>,
    timestamp: string,
    line: number,
  ): ToolResultMessage {
    const toolCallId = stringField(block, "tool_use_id") ?? "";
    const toolName = this.toolNames.get(toolCallId);
    if (toolName === undefined) {
      this.options.log.issue(
        line,
        `tool_result for "${toolCallId}" has no earlier tool_use; tool name "unknown"`,
      );
    }
    return {
      role: "toolResult",
      toolCallId,
      toolName: toolName ?? "unknown",
      content: convertToolResultContent(block.content, this.blockReporter(line)),
      isError: block.is_error === true,
      timestamp: Date.parse(timestamp),
    };
  }

  private convertAssistant(record: JsonRecord, message: Record<string, unknown>): void {
    const { value, line } = record;
    if (this.compaction) this.compaction.awaitingSummary = false;
    const parentId = this.resolveParent(stringField(value, "parentUuid"), line);
    const report = this.blockReporter(line);
    const rawContent = Array.isArray(message.content) ? message.content : [];
    const blocks = rawContent.flatMap((block) => convertAssistantBlock(block, report) ?? []);
    for (const block of blocks) if (block.type === "toolCall") this.toolNames.set(block.id, block.name);
    const messageId = stringField(message, "id");
    const stopReason = stringField(message, "stop_reason");
    const open = this.openResponse;
    if (open !== undefined && messageId === open.messageId && parentId === open.tailId) {
      appendAssistantBlocks(open.message.content, blocks);
      if (message.usage !== undefined) open.message.usage = convertUsage(message.usage);
      open.stopReason = stopReason ?? open.stopReason;
      this.settleStopReason(open.message, open.stopReason, value);
      this.alias(value, open.tailId);
      return;
    }
    const timestamp = this.entryTimestamp(value, line);
    const assistant: AssistantMessage = {
      role: "assistant",
      content: blocks,
      api: "anthropic-messages",
      provider: "anthropic",
      model: stringField(message, "model") ?? "unknown",
      usage: convertUsage(message.usage),
      stopReason: "stop",
      timestamp: Date.parse(timestamp),
    };
    if (messageId !== undefined) assistant.responseId = messageId;
    this.settleStopReason(assistant, stopReason, value);
    const id = this.emitMessage(record, 0, parentId, timestamp, assistant);
    this.openResponse =
      messageId === undefined ? undefined : { messageId, message: assistant, tailId: id, stopReason };
    this.alias(value, id);
  }

  private settleStopReason(
    message: AssistantMessage,
    stopReason: string | undefined,
    line: Record<string, unknown>,
  ): void {
    const hasToolCall = message.content.some((block) => block.type === "toolCall");
    message.stopReason = convertStopReason(stopReason, hasToolCall);
    if (line.isApiErrorMessage === true) {
      message.stopReason = "error";
      message.errorMessage = plainText(message.content);
    }
  }

  private convertCompactBoundary(record: JsonRecord): void {
    const { value, line } = record;
    const parentUuid = stringField(value, "logicalParentUuid") ?? stringField(value, "parentUuid");
    const parentId = this.resolveParent(parentUuid, line);
    const metadata = isRecordObject(value.compactMetadata) ? value.compactMetadata : {};
    const preTokens = metadata.preTokens;
    const entry: CompactionEntry = {
      type: "compaction",
      id: this.uniqueId(
        stringField(value, "uuid") ?? derivedEntryId(this.options.sourceName, line, this.ids),
      ),
      parentId,
      timestamp: this.entryTimestamp(value, line),
      summary: MISSING_COMPACT_SUMMARY,
      firstKeptEntryId: "",
      tokensBefore: typeof preTokens === "number" ? preTokens : 0,
      details: { source: "claude-code", ...metadata },
    };
    this.emit(entry);
    this.compaction = { entry, awaitingSummary: true, awaitingFirstKept: true };
    this.alias(value, entry.id);
  }

  /** Takes the first conversation line after a compact boundary as its summary when it is one. */
  private takeCompactSummary(value: Record<string, unknown>, message: Record<string, unknown>): boolean {
    const compaction = this.compaction;
    if (!compaction?.awaitingSummary) return false;
    compaction.awaitingSummary = false;
    const text = plainText(message.content);
    if (value.isCompactSummary !== true && !text.startsWith(CONTINUATION_PREFIX)) return false;
    compaction.entry.summary = text;
    this.alias(value, compaction.entry.id);
    return true;
  }

  private convertSummary(record: JsonRecord): void {
    const summary = stringField(record.value, "summary") ?? "";
    if (this.compaction?.awaitingSummary) {
      this.compaction.awaitingSummary = false;
      this.compaction.entry.summary = summary;
      return;
    }
    const leafUuid = stringField(record.value, "leafUuid");
    this.titles.push(leafUuid === undefined ? { summary } : { summary, leafUuid });
  }

  private skipLine(record: JsonRecord, reason: string): void {
    this.options.log.skip(reason);
    // Children of a skipped line attach where the skipped line would have.
    this.alias(record.value, this.resolveParent(stringField(record.value, "parentUuid"), record.line, false));
  }

  private emitMessage(
    record: JsonRecord,
    index: number,
    parentId: string | null,
    timestamp: string,
    message: MessageEntry["message"],
  ): string {
    const uuid = stringField(record.value, "uuid");
    const preferred = uuid ?? derivedEntryId(this.options.sourceName, record.line, this.ids);
    const id = this.uniqueId(index === 0 ? preferred : `${preferred}-${index}`);
    const entry: MessageEntry = { type: "message", id, parentId, timestamp, message };
    if (record.value.isMeta === true) entry.isMeta = true;
    const open = this.openResponse;
    const continuesResponse = open !== undefined && message.role === "toolResult" && open.tailId === parentId;
    this.openResponse = continuesResponse ? open : undefined;
    this.emit(entry);
    if (continuesResponse) open.tailId = id;
    return id;
  }

  private emit(entry: TranscriptEntry): void {
    const compaction = this.compaction;
    if (compaction?.awaitingFirstKept && compaction.entry !== entry) {
      compaction.entry.firstKeptEntryId = entry.id;
      compaction.awaitingFirstKept = false;
    }
    this.entries.push(entry);
    this.ids.add(entry.id);
  }

  private uniqueId(preferred: string): string {
    let id = preferred;
    for (let suffix = 1; this.ids.has(id); suffix++) id = `${preferred}-${suffix}`;
    return id;
  }

  private alias(value: Record<string, unknown>, attachId: string | null): void {
    const uuid = stringField(value, "uuid");
    if (uuid !== undefined) this.attachIdOfUuid.set(uuid, attachId);
  }

  private resolveParent(parentUuid: string | undefined, line: number, report = true): string | null {
    if (parentUuid === undefined) return null;
    const attachId = this.attachIdOfUuid.get(parentUuid);
    if (attachId !== undefined) return attachId;
    if (report)
      this.options.log.issue(line, `parent ${parentUuid} is not in the file; the entry starts a new root`);
    return null;
  }

  private entryTimestamp(value: Record<string, unknown>, line: number): string {
    const timestamp = stringField(value, "timestamp");
    if (timestamp !== undefined && !Number.isNaN(Date.parse(timestamp))) return timestamp;
    this.options.log.issue(line, "line has no valid timestamp; set to the import time");
    return new Date(this.options.now()).toISOString();
  }

  private blockReporter(line: number): DroppedBlockReporter {
    return (blockType, detail) => {
      this.options.log.skip(`block:${blockType}`);
      this.options.log.issue(line, `${detail}; dropped`);
    };
  }
}
