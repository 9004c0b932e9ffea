/**
 * The `bm25` baseline: BM25 over the turns of the history (a user message and what followed it),
 * with the incoming prompt as the query; the best-scoring turns that fit the budget are sent in
 * chronological order. The turn in progress (during a tool loop) is always kept, so the model can
 * finish it. It keeps its own copy of every message for its recall tool (BM25 over messages).
 * It never compacts.
 */
import { readFile } from "node:fs/promises";
import {
  type AfterTurnParams,
  type AgentMessage,
  type AssembleParams,
  type AssembleResult,
  activeBranch,
  type BootstrapParams,
  type BootstrapResult,
  type CompactResult,
  type ContextEngine,
  type ContextEngineInfo,
  countMessagesTokens,
  describeError,
  type IngestBatchParams,
  type IngestBatchResult,
  type IngestParams,
  type IngestResult,
  importTranscript,
  isMessageEntry,
  readableTextParts,
  type TokenCounter,
} from "@clew/core";
import type { RecallAdapter } from "../recall-adapter.js";
import { type Bm25Document, bm25Scores } from "./bm25.js";
import { exchanges, startsWithUser } from "./message-groups.js";
import { MessageStore } from "./message-store.js";
import { textTerms } from "./text-terms.js";

export const BM25_ENGINE_ID = "bm25";

interface TermCounts {
  length: number;
  terms: Map<string, number>;
}

export class Bm25Engine implements ContextEngine {
  readonly info: ContextEngineInfo = Object.freeze({
    id: BM25_ENGINE_ID,
    name: "BM25 baseline (best-matching turns that fit)",
    version: "1.0.0",
    ownsCompaction: true,
  });
  private readonly sessions = new Map<string, MessageStore>();
  private readonly termCache = new WeakMap<object, TermCounts>();

  constructor(private readonly counter: TokenCounter) {}

  /**
   * Imports the active branch of the session file; messages already stored are skipped. A session
   * without a readable file (an in-memory session) has nothing to import: `bootstrapped: false`.
   */
  async bootstrap(params: BootstrapParams): Promise<BootstrapResult> {
    let text: string;
    try {
      text = await readFile(params.sessionFile, "utf8");
    } catch (error) {
      return { bootstrapped: false, reason: `cannot read the session file: ${describeError(error)}` };
    }
    const imported = importTranscript(text, { sourceName: params.sessionFile, now: () => 0 });
    const store = this.store(params.sessionId);
    let added = 0;
    for (const entry of activeBranch(imported.entries)) {
      if (isMessageEntry(entry) && store.add(entry.message)) added++;
    }
    return { bootstrapped: true, importedMessages: added };
  }

  async ingest(params: IngestParams): Promise<IngestResult> {
    return { ingested: this.store(params.sessionId).add(params.message) };
  }

  async ingestBatch(params: IngestBatchParams): Promise<IngestBatchResult> {
    const store = this.store(params.sessionId);
    return { ingestedCount: params.messages.filter((message) => store.add(message)).length };
  }

  async afterTurn(params: AfterTurnParams): Promise<void> {
    const store = this.store(params.sessionId);
    for (const message of params.messages.slice(params.prePromptMessageCount)) store.add(message);
  }

  /** Never exceeds `tokenBudget` unless the turn in progress alone does. */
  async assemble(params: AssembleParams): Promise<AssembleResult> {
    const units = exchanges(params.messages);
    const last = units.at(-1);
    const current = last !== undefined && isTurnInProgress(last, params.prompt) ? (units.pop() ?? []) : [];
    const candidates = units.filter(startsWithUser);
    const scores = bm25Scores(
      candidates.map((unit) => this.document(unit)),
      textTerms(params.prompt ?? ""),
    );
    const ranked = scores
      .map((score, position) => ({ score, position }))
      .filter((hit) => hit.score > 0)
      .sort((left, right) => right.score - left.score || left.position - right.position);
    let room = (params.tokenBudget ?? Number.POSITIVE_INFINITY) - countMessagesTokens(this.counter, current);
    const chosen: number[] = [];
    for (const { position } of ranked) {
      const cost = countMessagesTokens(this.counter, candidates[position] ?? []);
      if (cost > room) continue;
      room -= cost;
      chosen.push(position);
    }
    chosen.sort((left, right) => left - right);
    const messages = [...chosen.flatMap((position) => candidates[position] ?? []), ...current];
    return { messages, estimatedTokens: countMessagesTokens(this.counter, messages) };
  }

  async compact(): Promise<CompactResult> {
    return { ok: true, compacted: false, reason: "the bm25 baseline selects at assemble time" };
  }

  async dispose(): Promise<void> {
    this.sessions.clear();
  }

  /** BM25 over the messages stored for `sessionId`. */
  recall(sessionId: string): RecallAdapter {
    return this.store(sessionId).recallAdapter();
  }

  private store(sessionId: string): MessageStore {
    let store = this.sessions.get(sessionId);
    if (store === undefined) {
      store = new MessageStore();
      this.sessions.set(sessionId, store);
    }
    return store;
  }

  /** A turn as one BM25 document, from per-message term counts cached across calls. */
  private document(unit: readonly AgentMessage[]): Bm25Document {
    const counts = unit.map((message) => this.termCounts(message));
    return {
      length: counts.reduce((sum, count) => sum + count.length, 0),
      frequency: (term) => counts.reduce((sum, count) => sum + (count.terms.get(term) ?? 0), 0),
    };
  }

  private termCounts(message: AgentMessage): TermCounts {
    if (typeof message !== "object" || message === null) return { length: 0, terms: new Map() };
    let counts = this.termCache.get(message);
    if (counts === undefined) {
      const terms = textTerms(readableTextParts(message).join("\n"));
      const map = new Map<string, number>();
      for (const term of terms) map.set(term, (map.get(term) ?? 0) + 1);
      counts = { length: terms.length, terms: map };
      this.termCache.set(message, counts);
    }
    return counts;
  }
}

/** During a tool loop the turn's own prompt is the last exchange's first message. */
function isTurnInProgress(unit: readonly AgentMessage[], prompt: string | undefined): boolean {
  const first = unit[0];
  if (prompt === undefined || first === undefined || !startsWithUser(unit)) return false;
  return readableTextParts(first).join("\n") === prompt;
}
