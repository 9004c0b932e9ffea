import type { CompactResult } from "../context-engine/types.js";
import type { AgentMessage } from "../messages.js";
import { countMessagesTokens } from "../tokens/estimate.js";
import type { TokenCounter } from "../tokens/token-counter.js";
import type { SessionRuntimeCompactor } from "./host-options.js";
import { InMemorySession } from "./in-memory-session.js";

/**
 * A deterministic runtime compaction for `InMemorySession`s, with no model: the summary names
 * how many messages of which roles it replaced and quotes the first line of each user message.
 * Keeps the newest `keepRecentMessages` messages raw, moving the cut earlier so that a tool result
 * is never kept without the call it answers. Reports `compacted: false` when nothing would go.
 */
export function createInMemoryRuntimeCompactor(options: {
  tokenCounter: TokenCounter;
  keepRecentMessages?: number;
}): SessionRuntimeCompactor {
  const keep = options.keepRecentMessages ?? 4;
  return async (request, session) => {
    if (!(session instanceof InMemorySession)) {
      return {
        ok: false,
        compacted: false,
        reason: "the in-memory compactor only compacts in-memory sessions",
      };
    }
    if (request.abortSignal?.aborted) throw request.abortSignal.reason;
    const entries = session.activeEntries;
    let cut = Math.max(0, entries.length - keep);
    while (cut > 0 && entries[cut]?.message !== undefined && isToolResult(entries[cut]?.message)) cut -= 1;
    if (cut === 0)
      return { ok: true, compacted: false, reason: "nothing to compact: every message is recent" };
    const before = await session.messages();
    const tokensBefore = countMessagesTokens(options.tokenCounter, before);
    const summarized = entries.slice(0, cut).map((entry) => entry.message);
    const summary = summarize(summarized, request.customInstructions);
    const firstKeptEntryId = entries[cut]?.id;
    session.applyCompaction({ summary, firstKeptEntryId });
    const tokensAfter = countMessagesTokens(options.tokenCounter, await session.messages());
    const result: CompactResult = {
      ok: true,
      compacted: true,
      result: { summary, tokensBefore, tokensAfter, details: { summarizedMessages: summarized.length } },
    };
    if (firstKeptEntryId !== undefined && result.result) result.result.firstKeptEntryId = firstKeptEntryId;
    return result;
  };
}

function isToolResult(message: AgentMessage | undefined): boolean {
  return (
    typeof message === "object" && message !== null && "role" in message && message.role === "toolResult"
  );
}

function summarize(messages: AgentMessage[], instructions: string | undefined): string {
  const lines = [`${messages.length} earlier messages were compacted.`];
  if (instructions) lines.push(`Instructions: ${instructions}`);
  for (const message of messages) {
    if (typeof message === "object" && message !== null && "role" in message && message.role === "user") {
      const text = typeof message.content === "string" ? message.content : "";
      const firstLine = text.split("\n")[0]?.slice(0, 200);
      if (firstLine) lines.push(`- user: ${firstLine}`);
    }
  }
  return lines.join("\n");
}
