// docs/plugins.md shows this file verbatim; packages/plugin-sdk/test/docs-examples.test.ts runs it.
import type {
  AfterTurnParams,
  AgentMessage,
  AssembleParams,
  AssembleResult,
  CompactParams,
  CompactResult,
  ContextEngine,
  IngestBatchParams,
  IngestBatchResult,
  IngestParams,
  IngestResult,
  PluginApi,
} from "@clew/plugin-sdk";

interface SessionState {
  messages: AgentMessage[];
  seen: Set<string>;
  /** One line per compacted message; undefined until the first compaction. */
  summary?: string;
  /** Index of the first message the summary does not cover. */
  firstKept: number;
}

/**
 * An engine that owns compaction: it keeps its own copy of each session, compacts everything but
 * the newest `keepRecent` messages into a one-line-per-message summary, and assembles the
 * summary plus the newest whole tool groups that fit the token budget.
 */
export function createKeepRecentEngine(options: { keepRecent?: number } = {}): ContextEngine {
  const keepRecent = options.keepRecent ?? 8;
  const sessions = new Map<string, SessionState>();

  const store = (sessionId: string, message: AgentMessage): boolean => {
    let state = sessions.get(sessionId);
    if (state === undefined) {
      state = { messages: [], seen: new Set(), firstKept: 0 };
      sessions.set(sessionId, state);
    }
    const key = JSON.stringify(message);
    if (state.seen.has(key)) return false;
    state.seen.add(key);
    state.messages.push(message);
    return true;
  };

  return {
    info: { id: "keep-recent", name: "Keep recent", version: "1.0.0", ownsCompaction: true },

    async ingest({ sessionId, message }: IngestParams): Promise<IngestResult> {
      return { ingested: store(sessionId, message) };
    },

    async ingestBatch({ sessionId, messages }: IngestBatchParams): Promise<IngestBatchResult> {
      return { ingestedCount: messages.filter((message) => store(sessionId, message)).length };
    },

    async afterTurn({ sessionId, messages }: AfterTurnParams): Promise<void> {
      for (const message of messages) store(sessionId, message);
    },

    async assemble({ sessionId, messages, tokenBudget }: AssembleParams): Promise<AssembleResult> {
      const state = sessions.get(sessionId);
      // Nothing stored yet (a new session, or a restart): start from the host's history.
      const history = state === undefined ? messages : state.messages.slice(state.firstKept);
      const budget = tokenBudget ?? Number.POSITIVE_INFINITY;
      let summary = state?.summary === undefined ? [] : [summaryMessage(state.summary)];
      let used = estimateTokens(summary);
      if (used > budget) {
        summary = [];
        used = 0;
      }
      const kept: AgentMessage[] = [];
      for (const group of toolGroups(history).reverse()) {
        const cost = estimateTokens(group);
        if (used + cost > budget) break;
        used += cost;
        kept.unshift(...group);
      }
      const assembled = [...summary, ...kept];
      return {
        messages: assembled,
        estimatedTokens: estimateTokens(assembled),
        promptAuthority: "assembled",
      };
    },

    async compact({ sessionId, abortSignal }: CompactParams): Promise<CompactResult> {
      abortSignal?.throwIfAborted();
      const state = sessions.get(sessionId);
      if (state === undefined)
        return { ok: true, compacted: false, reason: "nothing stored for this session" };
      let cut = state.messages.length - keepRecent;
      // Never cut between a tool call and its results.
      while (cut > state.firstKept && isToolResult(state.messages[cut])) cut--;
      if (cut <= state.firstKept)
        return { ok: true, compacted: false, reason: "only recent messages are left" };
      const before = contextOf(state);
      const lines = state.messages.slice(state.firstKept, cut).map(describe);
      state.summary = [state.summary, ...lines].filter((line) => line !== undefined).join("\n");
      state.firstKept = cut;
      return {
        ok: true,
        compacted: true,
        result: {
          summary: state.summary,
          tokensBefore: estimateTokens(before),
          tokensAfter: estimateTokens(contextOf(state)),
        },
      };
    },

    async dispose(): Promise<void> {
      sessions.clear();
    },
  };
}

/** Clew loads this: `register(api)` is the plugin's default export. */
export default function register(api: PluginApi): void {
  const keepRecent = (api.pluginConfig as { keepRecent?: number } | undefined)?.keepRecent;
  api.registerContextEngine("keep-recent", () =>
    createKeepRecentEngine(keepRecent === undefined ? {} : { keepRecent }),
  );
}

/** Conservative on purpose (JSON text / 3): an owning engine must never exceed the budget. */
function estimateTokens(messages: readonly AgentMessage[]): number {
  return messages.reduce((sum, message) => sum + Math.ceil(JSON.stringify(message).length / 3), 0);
}

function contextOf(state: SessionState): AgentMessage[] {
  const summary = state.summary === undefined ? [] : [summaryMessage(state.summary)];
  return [...summary, ...state.messages.slice(state.firstKept)];
}

function summaryMessage(summary: string): AgentMessage {
  return { role: "user", content: `Summary of the earlier conversation:\n${summary}`, timestamp: 0 };
}

function isToolResult(message: AgentMessage | undefined): boolean {
  return message !== undefined && "role" in message && message.role === "toolResult";
}

/** Each message with the tool results that follow it, so a call and its results stay together. */
function toolGroups(messages: readonly AgentMessage[]): AgentMessage[][] {
  const groups: AgentMessage[][] = [];
  for (const message of messages) {
    const last = groups.at(-1);
    if (isToolResult(message) && last !== undefined) last.push(message);
    else groups.push([message]);
  }
  return groups;
}

/** `role: first 100 characters`, tool calls by name. */
function describe(message: AgentMessage): string {
  const role = "role" in message ? String(message.role) : "message";
  const content = "content" in message ? (message.content as unknown) : undefined;
  const parts =
    typeof content === "string" ? [{ type: "text", text: content }] : Array.isArray(content) ? content : [];
  const text = parts
    .map((part: { type?: string; text?: string; name?: string }) =>
      part.type === "text" ? part.text : part.type === "toolCall" ? `[called ${part.name}]` : "",
    )
    .join(" ")
    .replace(/\s+/g, " ")
    .trim();
  return `- ${role}: ${text.slice(0, 100)}`;
}
