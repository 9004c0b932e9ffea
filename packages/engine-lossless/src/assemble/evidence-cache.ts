/**
 * The evidence block of each session's latest assembly (see `recall-evidence.ts`), kept so the
 * same prompt over the same view gets the same block: the calls of one turn's tool loop then send
 * identical requests. A failure costs the block, never the assembly.
 */
import { describeError, type Logger, type TokenCounter } from "@clew/core";
import type { SemanticRecall } from "../embeddings/semantic-recall.js";
import type { LosslessStore } from "../store/store.js";
import type { SessionView } from "../view/session-view.js";
import type { AssembledView } from "./assemble-view.js";
import { type RecalledEvidence, recallEvidence } from "./recall-evidence.js";

export interface EvidenceCacheOptions {
  store: LosslessStore;
  counter: TokenCounter;
  /** Share of the budget the block may take (`recallShare`). */
  recallShare: number;
  /** Most tokens the block may take (`recallMaxTokens`). */
  recallMaxTokens: number;
  logger: Logger;
  /** Search by meaning, when the engine has word vectors or an embedder. */
  meaning?: SemanticRecall | undefined;
}

export interface EvidenceQuery {
  sessionId: string;
  /** The pending prompt; no block without one. */
  prompt: string | undefined;
  view: SessionView;
  assembled: AssembledView;
  /** The session's whole budget. */
  budget: number;
  /** What assembly may fill; the block only takes what the assembled view left of it. */
  usable: number;
}

export class EvidenceCache {
  /** The last evidence block per session and what it was made for. */
  private readonly latest = new Map<string, { key: string; evidence: RecalledEvidence | undefined }>();

  constructor(private readonly options: EvidenceCacheOptions) {}

  /**
   * Earlier messages matching the pending prompt, for the room the stable part leaves, or
   * undefined when there is no prompt, no room or no match. Never throws: a failure is logged.
   */
  async evidenceFor(query: EvidenceQuery): Promise<RecalledEvidence | undefined> {
    const { sessionId, view, assembled } = query;
    const text = query.prompt?.trim() ?? "";
    const room = Math.min(
      Math.floor(query.budget * this.options.recallShare),
      this.options.recallMaxTokens,
      query.usable - assembled.tokens,
    );
    if (text.length === 0 || room <= 0) return undefined;
    // The room shrinks as a tool loop's steps arrive; a block that still fits is kept, so the
    // steps of one turn send the same block.
    const key = `${view.version}\u0000${assembled.keptFrom}\u0000${text}`;
    const cached = this.latest.get(sessionId);
    if (cached?.key === key && (cached.evidence?.tokens ?? 0) <= room) return cached.evidence;
    try {
      const evidence = await recallEvidence({
        store: this.options.store,
        sessionId,
        query: text,
        inContext: view.rawFrom(assembled.keptFrom),
        ...storedUpTo(view),
        roomTokens: room,
        counter: this.options.counter,
        ...(this.options.meaning === undefined ? {} : { meaning: this.options.meaning }),
      });
      this.latest.set(sessionId, { key, evidence });
      return evidence;
    } catch (error) {
      this.options.logger.warn("lossless: recalling evidence for the prompt failed", {
        error: describeError(error),
      });
      return undefined;
    }
  }

  clear(): void {
    this.latest.clear();
  }
}

function storedUpTo(view: SessionView): { storedUpTo?: number } {
  const newest = view.newestSeq();
  return newest === undefined ? {} : { storedUpTo: newest };
}
