/**
 * One turn's assembly from the store (`LosslessEngine.assemble` with a usable store): the
 * session's view (stored first when the session is seen for the first time), fitted into the
 * budget with a digest of what is left out, the evidence block for the pending prompt, and the
 * flight recorder's note of it. Throws what the store throws; the engine then hands the host's
 * messages back unchanged.
 */
import type { AgentMessage, AssembleResult, Logger, TokenCounter } from "@clew/core";
import type { StoreParts } from "../engine-parts.js";
import type { SessionView } from "../view/session-view.js";
import type { AssembledView } from "./assemble-view.js";
import { assembleWithDigest, DigestCache } from "./history-digest.js";
import { placeEvidence } from "./recall-evidence.js";

export interface TurnAssemblerOptions {
  counter: TokenCounter;
  logger: Logger;
  now: () => number;
  elapsed: () => number;
}

export interface TurnRequest {
  sessionId: string;
  messages: AgentMessage[];
  prompt: string | undefined;
  /** The session's budget, and what is usable of it after the recall policy and the margin. */
  budget: number;
  usable: number;
  /** `elapsed()` when the call started, for the record's duration. */
  started: number;
}

export class TurnAssembler {
  private readonly digests = new DigestCache();
  /** Sessions already warned that the host's history holds none of their newest messages. */
  private readonly unmatchedHistory = new Set<string>();

  constructor(private readonly options: TurnAssemblerOptions) {}

  async assemble(
    parts: StoreParts,
    request: TurnRequest,
  ): Promise<Omit<AssembleResult, "systemPromptAddition">> {
    const { sessionId, messages, budget, usable } = request;
    let view = await parts.views.get(sessionId);
    if (!view.hasMessages && messages.length > 0) {
      await parts.writer.storeBeforeRunningTurn(sessionId, messages);
      view = await parts.views.get(sessionId);
    }
    const assembled = await assembleWithDigest({
      sessionId,
      view,
      hostMessages: messages,
      budget: usable,
      counter: this.options.counter,
      cache: this.digests,
    });
    const evidence = await parts.evidence.evidenceFor({
      sessionId,
      prompt: request.prompt,
      view,
      assembled,
      budget,
      usable,
    });
    this.warnOnUnmatchedHistory(sessionId, assembled);
    this.noteAssembly(parts, request, view, assembled, evidence?.tokens);
    const result: Omit<AssembleResult, "systemPromptAddition"> = {
      messages: assembled.messages,
      estimatedTokens: assembled.tokens + (evidence?.tokens ?? 0),
      promptAuthority: "assembled",
    };
    if (evidence === undefined) return result;
    // The block is the one part of the context that changes with every request: the prefix
    // before it is what the next assembly repeats (see `AssembleResult.cacheBoundary`).
    const placed = placeEvidence(assembled.messages, assembled.live, evidence.message);
    const boundary = placed.indexOf(evidence.message);
    return { ...result, messages: placed, ...(boundary > 0 ? { cacheBoundary: boundary } : {}) };
  }

  clear(): void {
    this.digests.clear();
  }

  private warnOnUnmatchedHistory(sessionId: string, assembled: AssembledView): void {
    if (assembled.liveFound || this.unmatchedHistory.has(sessionId)) return;
    this.unmatchedHistory.add(sessionId);
    this.options.logger.warn("lossless: the host's history holds none of the newest stored messages", {
      sessionId,
    });
  }

  /** Queues the assembly's flight-recorder record (in memory; written after the call). */
  private noteAssembly(
    parts: StoreParts,
    request: TurnRequest,
    view: SessionView,
    assembled: AssembledView,
    evidenceTokens: number | undefined,
  ): void {
    parts.recorder.noteAssembly({
      sessionId: request.sessionId,
      view,
      assembledAt: this.options.now(),
      durationMs: this.options.elapsed() - request.started,
      budgetTokens: request.usable,
      tokens: assembled.tokens + (evidenceTokens ?? 0),
      messageCount: assembled.messages.length + (evidenceTokens === undefined ? 0 : 1),
      keptFrom: assembled.keptFrom,
      clipped: assembled.clipped,
    });
  }
}
