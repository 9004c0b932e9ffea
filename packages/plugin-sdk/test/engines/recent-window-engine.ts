import { createHash } from "node:crypto";
import {
  type AgentMessage,
  charEstimateTokenCounter,
  countMessagesTokens,
  type TokenCounter,
} from "@clew/core";
import type {
  AfterTurnParams,
  AssembleParams,
  AssembleResult,
  CompactParams,
  CompactResult,
  ContextEngine,
  IngestBatchParams,
  IngestBatchResult,
  IngestParams,
  IngestResult,
} from "../../src/index.js";

interface SessionState {
  messages: AgentMessage[];
  keys: Set<string>;
  summary: string | undefined;
  /** Index of the first message not covered by the summary. */
  cut: number;
}

/**
 * An engine that owns compaction: it keeps its own copy of each session, summarizes everything
 * before the newest `keepRecent` messages on `compact`, and assembles the summary plus the newest
 * whole tool groups that fit the budget.
 */
export class RecentWindowEngine implements ContextEngine {
  readonly info = {
    id: "recent-window",
    name: "Recent window (test engine)",
    version: "1.0.0",
    ownsCompaction: true,
  };
  private readonly sessions = new Map<string, SessionState>();

  constructor(private readonly options: { keepRecent?: number; counter?: TokenCounter } = {}) {}

  async ingest(params: IngestParams): Promise<IngestResult> {
    return { ingested: this.store(params.sessionId, params.message) };
  }

  async ingestBatch(params: IngestBatchParams): Promise<IngestBatchResult> {
    let ingestedCount = 0;
    for (const message of params.messages) if (this.store(params.sessionId, message)) ingestedCount++;
    return { ingestedCount };
  }

  async afterTurn(params: AfterTurnParams): Promise<void> {
    for (const message of params.messages) this.store(params.sessionId, message);
  }

  async assemble(params: AssembleParams): Promise<AssembleResult> {
    const state = this.sessions.get(params.sessionId);
    const source = state === undefined ? params.messages : state.messages.slice(state.cut);
    const budget = params.tokenBudget ?? Number.POSITIVE_INFINITY;
    const summary: AgentMessage[] =
      state?.summary === undefined
        ? []
        : [{ role: "user", content: `Summary so far: ${state.summary}`, timestamp: 0 }];
    const counter = this.counter();
    let used = countMessagesTokens(counter, summary);
    const kept: AgentMessage[] = [];
    for (const group of toolGroups(source).reverse()) {
      const cost = countMessagesTokens(counter, group);
      if (used + cost > budget) break;
      used += cost;
      kept.unshift(...group);
    }
    const messages = used <= budget ? [...summary, ...kept] : kept;
    return {
      messages,
      estimatedTokens: countMessagesTokens(counter, messages),
      promptAuthority: "assembled",
    };
  }

  async compact(params: CompactParams): Promise<CompactResult> {
    if (params.abortSignal?.aborted) throw params.abortSignal.reason;
    const state = this.sessions.get(params.sessionId);
    const keep = this.options.keepRecent ?? 6;
    if (state === undefined || state.messages.length - state.cut <= keep) {
      return { ok: true, compacted: false, reason: "nothing to compact" };
    }
    const counter = this.counter();
    const tokensBefore = countMessagesTokens(counter, state.messages.slice(state.cut));
    let cut = state.messages.length - keep;
    while (cut > state.cut && isToolResult(state.messages[cut])) cut--;
    if (cut <= state.cut)
      return { ok: true, compacted: false, reason: "the recent window is one tool group" };
    const covered = state.messages.slice(state.cut, cut);
    state.summary = `${state.summary ? `${state.summary} ` : ""}[${covered.length} messages summarized]`;
    state.cut = cut;
    return {
      ok: true,
      compacted: true,
      result: {
        summary: state.summary,
        tokensBefore,
        tokensAfter: countMessagesTokens(counter, state.messages.slice(cut)),
      },
    };
  }

  async dispose(): Promise<void> {
    this.sessions.clear();
  }

  private counter(): TokenCounter {
    return this.options.counter ?? charEstimateTokenCounter;
  }

  private store(sessionId: string, message: AgentMessage): boolean {
    let state = this.sessions.get(sessionId);
    if (state === undefined) {
      state = { messages: [], keys: new Set(), summary: undefined, cut: 0 };
      this.sessions.set(sessionId, state);
    }
    const key = createHash("sha256").update(JSON.stringify(message)).digest("hex");
    if (state.keys.has(key)) return false;
    state.keys.add(key);
    state.messages.push(message);
    return true;
  }
}

function isToolResult(message: AgentMessage | undefined): boolean {
  return (
    typeof message === "object" && message !== null && "role" in message && message.role === "toolResult"
  );
}

/** Messages grouped so a tool call and its results always travel together. */
function toolGroups(messages: AgentMessage[]): AgentMessage[][] {
  const groups: AgentMessage[][] = [];
  for (const message of messages) {
    const last = groups.at(-1);
    if (isToolResult(message) && last !== undefined) last.push(message);
    else groups.push([message]);
  }
  return groups;
}
