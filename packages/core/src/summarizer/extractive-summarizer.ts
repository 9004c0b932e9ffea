/**
 * A summarizer without a model: every section is filled by rules over the span, so the result is
 * deterministic, instant and never fails. It is the fallback when a model summarizer fails and the
 * stub the quality suite scores against.
 *
 * Sections:
 * - Goal: the previous summary's goal, else the first user message (bare `/commands` skipped).
 * - Constraints & Rules: user sentences with must / never / always / should / don't / do not.
 * - Progress: tool calls by name with counts; files read and files modified (from tool arguments).
 * - Key Decisions: assistant sentences with decided / we will / we'll / let's / going to.
 * - Open TODOs: user and assistant lines with TODO or FIXME, or an unchecked `- [ ]` (tool output is
 *   skipped: TODO comments in files the agent read are not the conversation's TODOs).
 * - Pending User Asks: user messages after the last assistant text answer.
 * - Exact Identifiers: `extractIdentifiers` over the whole span and the previous summary.
 * - Next Steps: the last two sentences of the last assistant text.
 * - Critical Context: the first line of every failed tool result and failed bash command.
 * With a previous summary, its items are kept and the new ones appended (deduplicated).
 *
 * Length: about `maxTokens × 4` characters. Over that, the longest section loses its oldest item
 * (or its single item is halved) until the summary fits; identifiers go only after everything else
 * is at its minimum.
 */
import { abortReason } from "../context-engine/abort.js";
import type { AgentMessage, AssistantMessage, ToolCall } from "../messages.js";
import { isAssistantMessage, isToolResultMessage, isUserMessage } from "../messages.js";
import { readableTextParts } from "../tokens/message-text.js";
import { extractIdentifiers, extractIdentifiersFromMessages } from "./identifiers.js";
import { SUMMARY_SECTIONS, type Summarizer, type SummarySection } from "./summarizer.js";
import { identifierBullets, MAX_SUMMARY_IDENTIFIERS, parseSummary, renderSection } from "./summary-format.js";

export const EXTRACTIVE_SUMMARIZER_ID = "extractive";

type Sections = Record<SummarySection, string[]>;

/** The extractive summarizer (id `extractive`). Rejects only when `signal` has fired. */
export function createExtractiveSummarizer(): Summarizer {
  return {
    id: EXTRACTIVE_SUMMARIZER_ID,
    async summarize(input) {
      if (input.signal?.aborted) throw abortReason(input.signal);
      const fresh = extractSections(input.messages);
      const previous = input.previousSummary === undefined ? undefined : parseSummary(input.previousSummary);
      const sections = previous === undefined ? fresh : mergeSections(previous.sections, fresh);
      const identifiers = unique([
        ...sections["Exact Identifiers"],
        ...(input.previousSummary === undefined ? [] : extractIdentifiers(input.previousSummary)),
        ...extractIdentifiersFromMessages(input.messages),
      ]);
      return fitToBudget({ ...sections, "Exact Identifiers": [] }, identifiers, input.maxTokens);
    },
  };
}

// Item lengths: long enough to keep a request readable, short enough that one pasted log does not
// crowd out everything else.
const GOAL_CHARS = 600;
const ASK_CHARS = 600;
const ITEM_CHARS = 300;
const ERROR_LINE_CHARS = 240;
const MAX_LISTED_FILES = 40;
const NEXT_STEP_SENTENCES = 2;

const CONSTRAINT_WORDS = /\b(?:must|never|always|should|don['’]t|do not)\b/i;
const DECISION_WORDS = /\b(?:decided|we will|we['’]ll|let['’]s|going to)\b/i;
const TODO_LINE = /\b(?:TODO|FIXME)\b|^\s*[-*]\s+\[ \]/;
const MODIFYING_TOOLS =
  /^(?:write|edit|multi_?edit|create|patch|apply_?patch|str_replace\w*|delete|move|rename)$/i;
const PATH_ARGUMENTS = ["path", "file_path", "filePath", "file", "filename", "target"];

function extractSections(messages: readonly AgentMessage[]): Sections {
  const sections = emptySections();
  const userTexts = messages.filter(isUserMessage).map(userText).filter(isMeaningfulUserText);
  const assistantTexts = messages
    .filter(isAssistantMessage)
    .map(assistantText)
    .filter((text) => text.length > 0);
  const firstRequest = userTexts[0];
  if (firstRequest !== undefined) sections.Goal.push(clip(firstRequest, GOAL_CHARS));
  sections["Constraints & Rules"] = matchingSentences(userTexts, CONSTRAINT_WORDS);
  sections.Progress = progressItems(messages);
  sections["Key Decisions"] = matchingSentences(assistantTexts, DECISION_WORDS);
  sections["Open TODOs"] = unique(
    [...userTexts, ...assistantTexts].flatMap((text) =>
      text.split("\n").filter((line) => TODO_LINE.test(line)),
    ),
  ).map((line) => clip(line.trim(), ITEM_CHARS));
  sections["Pending User Asks"] = pendingAsks(messages);
  const lastAnswer = assistantTexts.at(-1);
  if (lastAnswer !== undefined) sections["Next Steps"] = sentencesOf(lastAnswer).slice(-NEXT_STEP_SENTENCES);
  sections["Critical Context"] = failureLines(messages);
  return sections;
}

function progressItems(messages: readonly AgentMessage[]): string[] {
  const toolCounts = new Map<string, number>();
  const read: string[] = [];
  const modified: string[] = [];
  for (const call of messages.filter(isAssistantMessage).flatMap(toolCallsOf)) {
    toolCounts.set(call.name, (toolCounts.get(call.name) ?? 0) + 1);
    const path = pathArgument(call);
    if (path !== undefined) (MODIFYING_TOOLS.test(call.name) ? modified : read).push(path);
  }
  const items: string[] = [];
  if (toolCounts.size > 0) {
    const counts = [...toolCounts].sort(
      ([nameA, countA], [nameB, countB]) => countB - countA || compare(nameA, nameB),
    );
    items.push(`Tool calls: ${counts.map(([name, count]) => `${name} ×${count}`).join(", ")}`);
  }
  if (read.length > 0) items.push(`Files read: ${listed(unique(read))}`);
  if (modified.length > 0) items.push(`Files modified: ${listed(unique(modified))}`);
  return items;
}

/** User messages after the last assistant message that answered with text. */
function pendingAsks(messages: readonly AgentMessage[]): string[] {
  let lastAnswer = -1;
  messages.forEach((message, index) => {
    if (isAssistantMessage(message) && assistantText(message).length > 0) lastAnswer = index;
  });
  return messages
    .slice(lastAnswer + 1)
    .filter(isUserMessage)
    .map(userText)
    .filter(isMeaningfulUserText)
    .map((text) => clip(text, ASK_CHARS));
}

function failureLines(messages: readonly AgentMessage[]): string[] {
  const lines: string[] = [];
  for (const message of messages) {
    if (isToolResultMessage(message) && message.isError) {
      const text = readableTextParts(message).join("\n");
      lines.push(clip(`${message.toolName} failed: ${firstLine(text)}`, ERROR_LINE_CHARS));
      continue;
    }
    const record = message as unknown as Record<string, unknown>;
    if (record.role === "bashExecution" && typeof record.exitCode === "number" && record.exitCode !== 0) {
      lines.push(clip(`$ ${String(record.command)} exited with ${record.exitCode}`, ERROR_LINE_CHARS));
    }
  }
  return unique(lines);
}

/** Previous items first, then new ones, deduplicated; the goal is the previous one when it has one. */
function mergeSections(previous: Partial<Record<SummarySection, string[]>>, fresh: Sections): Sections {
  const merged = emptySections();
  for (const section of SUMMARY_SECTIONS) {
    const kept = (previous[section] ?? []).filter((item) => !COUNTED_REST.test(item));
    merged[section] =
      section === "Goal" && kept.length > 0 ? kept : unique([...kept, ...fresh[section]], normalizeSpace);
  }
  return merged;
}

const COUNTED_REST = /^…and \d+ more/;

/**
 * Renders the sections with `identifiers` as the Exact Identifiers section, trimmed to about
 * `maxTokens × 4` characters: the longest other section gives up its oldest item (or its single
 * item is halved, down to `MIN_ITEM_CHARS`) until the text fits; then identifiers are dropped from
 * the end. A summary that cannot shrink further is returned over budget rather than empty.
 */
function fitToBudget(sections: Sections, identifiers: readonly string[], maxTokens: number): string {
  const budget = Math.max(1, Math.floor(maxTokens)) * 4;
  const sizes = new Map(
    SUMMARY_SECTIONS.map((section) => [section, renderSection(section, sections[section]).length]),
  );
  let shownIdentifiers = Math.min(identifiers.length, MAX_SUMMARY_IDENTIFIERS);
  const identifierSize = (shown: number) =>
    renderSection("Exact Identifiers", identifierLines(identifiers, shown)).length;
  const total = () =>
    sum([...sizes.values()]) + identifierSize(shownIdentifiers) + 2 * (SUMMARY_SECTIONS.length - 1);
  let over = total() - budget;
  while (over > 0) {
    const section = longestTrimmable(sections, sizes);
    if (section !== undefined) {
      const removed = trimSection(sections[section]);
      // Dropping one of many items is the common step: subtract its line instead of re-rendering.
      const size =
        removed === undefined
          ? renderSection(section, sections[section]).length
          : (sizes.get(section) ?? 0) - lineLength(removed);
      sizes.set(section, size);
    } else if (shownIdentifiers > 0) {
      shownIdentifiers = Math.max(0, shownIdentifiers - Math.max(1, Math.floor(over / 40)));
    } else {
      break;
    }
    over = total() - budget;
  }
  return SUMMARY_SECTIONS.map((section) =>
    section === "Exact Identifiers"
      ? renderSection(section, identifierLines(identifiers, shownIdentifiers))
      : renderSection(section, sections[section]),
  ).join("\n\n");
}

const MIN_ITEM_CHARS = 80;

/** The items of the identifier section: `shown` identifiers, then the count of the rest. */
function identifierLines(identifiers: readonly string[], shown: number): string[] {
  return identifierBullets(identifiers, shown).map((line) => line.slice(2));
}

function longestTrimmable(
  sections: Sections,
  sizes: Map<SummarySection, number>,
): SummarySection | undefined {
  let longest: SummarySection | undefined;
  for (const section of SUMMARY_SECTIONS) {
    if (section === "Exact Identifiers" || !isTrimmable(sections[section])) continue;
    if (longest === undefined || (sizes.get(section) ?? 0) > (sizes.get(longest) ?? 0)) longest = section;
  }
  return longest;
}

function isTrimmable(items: readonly string[]): boolean {
  return items.length > 1 || (items[0]?.length ?? 0) > MIN_ITEM_CHARS;
}

/** Drops the oldest of several items (returned), or halves a single item in place. */
function trimSection(items: string[]): string | undefined {
  if (items.length > 1) return items.shift();
  const only = items[0];
  if (only !== undefined) items[0] = clip(only, Math.max(MIN_ITEM_CHARS, Math.floor(only.length / 2)));
  return undefined;
}

/** Characters `item` takes in a rendered section: "- ", continuation indents, and its newline. */
function lineLength(item: string): number {
  return 2 + item.length + 2 * (item.match(/\n/g)?.length ?? 0) + 1;
}

function emptySections(): Sections {
  return Object.fromEntries(SUMMARY_SECTIONS.map((section) => [section, [] as string[]])) as Sections;
}

function userText(message: { content: string | ReadonlyArray<{ type: string; text?: string }> }): string {
  if (typeof message.content === "string") return message.content.trim();
  return message.content
    .map((block) => (block.type === "text" ? (block.text ?? "") : ""))
    .join("\n")
    .trim();
}

function assistantText(message: AssistantMessage): string {
  return message.content
    .map((block) => (block.type === "text" ? block.text : ""))
    .join("\n")
    .trim();
}

/** Not empty and not a bare slash command such as `/mode`, which states no goal. */
function isMeaningfulUserText(text: string): boolean {
  return text.length > 0 && !/^\/\S+$/.test(text);
}

function toolCallsOf(message: AssistantMessage): ToolCall[] {
  if (!Array.isArray(message.content)) return [];
  return message.content.filter(
    (block): block is ToolCall => typeof block === "object" && block !== null && block.type === "toolCall",
  );
}

function pathArgument(call: ToolCall): string | undefined {
  const args: unknown = call.arguments;
  if (typeof args !== "object" || args === null) return undefined;
  for (const key of PATH_ARGUMENTS) {
    const value = (args as Record<string, unknown>)[key];
    if (typeof value === "string" && value.trim().length > 0) return value.trim();
  }
  return undefined;
}

function matchingSentences(texts: readonly string[], pattern: RegExp): string[] {
  return unique(
    texts.flatMap((text) => sentencesOf(text).filter((sentence) => pattern.test(sentence))),
    normalizeSpace,
  ).map((sentence) => clip(sentence, ITEM_CHARS));
}

/** Sentences and lines of `text`, without list markers ("- ", "2. "). */
function sentencesOf(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+|\n+/)
    .map((sentence) => sentence.replace(/^\s*(?:[-*+]|\d+[.)])\s+/, "").trim())
    .filter((sentence) => sentence.length > 0);
}

function firstLine(text: string): string {
  return (
    text
      .split("\n")
      .find((line) => line.trim().length > 0)
      ?.trim() ?? "(no output)"
  );
}

function listed(items: readonly string[]): string {
  const shown = items.slice(0, MAX_LISTED_FILES).join(", ");
  return items.length > MAX_LISTED_FILES ? `${shown}, …and ${items.length - MAX_LISTED_FILES} more` : shown;
}

function clip(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, limit - 1).trimEnd()}…`;
}

function unique(items: readonly string[], key: (item: string) => string = (item) => item): string[] {
  const seen = new Set<string>();
  return items.filter((item) => {
    const itemKey = key(item);
    if (seen.has(itemKey)) return false;
    seen.add(itemKey);
    return true;
  });
}

function normalizeSpace(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}

function compare(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}
