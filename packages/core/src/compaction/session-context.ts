import type { AgentMessage } from "../messages.js";
import type { CompactionEntry, TranscriptEntry } from "../transcript/entries.js";

/**
 * The message pi and OpenClaw put where a compaction summary stands in the context. Engines see
 * this custom role; the history pipeline turns it into a user message for the model.
 */
export interface CompactionSummaryMessage {
  role: "compactionSummary";
  summary: string;
  tokensBefore: number;
  timestamp: number;
}

/** How a compaction summary reads to the model. */
export function compactionSummaryText(summary: string): string {
  return `The conversation history before this point was compacted into the following summary:\n<summary>\n${summary}\n</summary>`;
}

export interface SessionContext {
  /** What the session says to the model, oldest first, before the history pipeline. */
  messages: AgentMessage[];
  /** For each message, the entry it came from (the compaction entry for the summary). */
  entryIds: string[];
  /** The newest compaction on the branch, when there is one. */
  latestCompaction: CompactionEntry | undefined;
}

/**
 * Rebuilds the context from the active branch (root first). With a compaction on the branch:
 * the summary first, then the messages kept from `firstKeptEntryId` up to the compaction, then
 * everything after it. `custom_message` entries become user messages; `custom` entries and
 * settings changes are not model-visible. Stored entries are never changed.
 */
export function buildSessionContext(branch: readonly TranscriptEntry[]): SessionContext {
  let compactionIndex = -1;
  for (let index = branch.length - 1; index >= 0; index--) {
    if (branch[index]?.type === "compaction") {
      compactionIndex = index;
      break;
    }
  }
  const context: SessionContext = { messages: [], entryIds: [], latestCompaction: undefined };
  if (compactionIndex < 0) {
    for (const entry of branch) pushEntry(context, entry);
    return context;
  }
  const compaction = branch[compactionIndex] as CompactionEntry;
  context.latestCompaction = compaction;
  const summary: CompactionSummaryMessage = {
    role: "compactionSummary",
    summary: compaction.summary,
    tokensBefore: compaction.tokensBefore,
    timestamp: Date.parse(compaction.timestamp) || 0,
  };
  context.messages.push(summary as unknown as AgentMessage);
  context.entryIds.push(compaction.id);
  const keptStart = branch.findIndex((entry) => entry.id === compaction.firstKeptEntryId);
  if (keptStart >= 0 && keptStart < compactionIndex) {
    for (const entry of branch.slice(keptStart, compactionIndex)) pushEntry(context, entry);
  }
  for (const entry of branch.slice(compactionIndex + 1)) pushEntry(context, entry);
  return context;
}

/** Adds one entry's model-visible message to a context built earlier (for incremental upkeep). */
export function pushEntry(context: SessionContext, entry: TranscriptEntry): void {
  if (entry.type === "message" && typeof entry.message === "object" && entry.message !== null) {
    context.messages.push(entry.message as AgentMessage);
    context.entryIds.push(entry.id);
  } else if (entry.type === "custom_message") {
    const content = entry.content;
    const text = typeof content === "string" ? content : JSON.stringify(content);
    context.messages.push({ role: "user", content: text, timestamp: Date.parse(entry.timestamp) || 0 });
    context.entryIds.push(entry.id);
  } else if (entry.type === "branch_summary" && typeof entry.summary === "string") {
    const text = `The following is a summary of a branch that this conversation came back from:\n<summary>\n${entry.summary}\n</summary>`;
    context.messages.push({ role: "user", content: text, timestamp: Date.parse(entry.timestamp) || 0 });
    context.entryIds.push(entry.id);
  }
}
