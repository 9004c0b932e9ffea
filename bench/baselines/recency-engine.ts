/**
 * The `recency` baseline: the newest messages that fit the budget, taken in whole tool groups,
 * starting at a user message. It stores nothing (the host's transcript keeps the session) and
 * never compacts: what does not fit is simply not sent.
 */
import {
  type AgentMessage,
  type AssembleParams,
  type AssembleResult,
  type CompactResult,
  type ContextEngine,
  type ContextEngineInfo,
  countMessagesTokens,
  type IngestResult,
  type TokenCounter,
} from "@clew/core";
import { startsWithUser, toolGroups } from "./message-groups.js";

export const RECENCY_ENGINE_ID = "recency";

export class RecencyEngine implements ContextEngine {
  readonly info: ContextEngineInfo = Object.freeze({
    id: RECENCY_ENGINE_ID,
    name: "Recency baseline (newest messages that fit)",
    version: "1.0.0",
    ownsCompaction: true,
  });

  constructor(private readonly counter: TokenCounter) {}

  async ingest(): Promise<IngestResult> {
    return { ingested: false };
  }

  /** Never exceeds `tokenBudget` (by this engine's counter); an unset budget keeps everything. */
  async assemble(params: AssembleParams): Promise<AssembleResult> {
    const budget = params.tokenBudget ?? Number.POSITIVE_INFINITY;
    const kept = newestGroupsWithin(toolGroups(params.messages), budget, this.counter);
    while (kept.length > 0 && !startsWithUser(kept[0] ?? [])) kept.shift();
    const messages = kept.flat();
    return { messages, estimatedTokens: countMessagesTokens(this.counter, messages) };
  }

  async compact(): Promise<CompactResult> {
    return { ok: true, compacted: false, reason: "the recency baseline selects at assemble time" };
  }
}

/** The longest run of newest groups whose tokens sum to at most `budget`. */
export function newestGroupsWithin(
  groups: readonly (readonly AgentMessage[])[],
  budget: number,
  counter: TokenCounter,
): AgentMessage[][] {
  const kept: AgentMessage[][] = [];
  let used = 0;
  for (let index = groups.length - 1; index >= 0; index--) {
    const group = groups[index] ?? [];
    const cost = countMessagesTokens(counter, group);
    if (used + cost > budget) break;
    used += cost;
    kept.unshift([...group]);
  }
  return kept;
}
