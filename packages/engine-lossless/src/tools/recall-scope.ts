/**
 * What the recall tools are bound to: one session of one engine's store, the sessions its
 * conversation had before a `/new` or `/reset`, and, for a forked subagent, the parent's history
 * its grant lets it read. Tools are made per session
 * (`LosslessEngine.tools`) because a tool call carries no session of its own.
 */
import type { TokenCounter } from "@clew/core";
import type { SemanticRecall } from "../embeddings/semantic-recall.js";
import type { LosslessStore } from "../store/store.js";
import type { EarlierHistory } from "./earlier-sessions.js";

export interface RecallScope {
  sessionId: string;
  /** The store, or undefined when it is unusable; the tools then fail with a clear error. */
  store: () => LosslessStore | undefined;
  counter: TokenCounter;
  /** Search by meaning over this session's messages, when the engine has an embedder. */
  meaning?: SemanticRecall;
  /**
   * The parent's history as this session may read it now. Throws `ParentRecallError` when it may
   * not (refusal `no-grant` for sessions that are not forked subagents). Absent: never readable.
   */
  parent?: () => ParentHistory;
  /** The conversation's earlier sessions, newest first. Absent when the session key is unknown. */
  earlier?: () => Promise<EarlierHistory[]>;
}

/** A parent conversation a forked subagent may read, up to the newest message at its spawn. */
export interface ParentHistory {
  sessionId: string;
  sessionKey: string;
  /** The newest readable parent message (`m<maxSeq>`). */
  maxSeq: number;
  /** Epoch milliseconds. */
  expiresAt: number;
  /** Reads of the parent session, limited to the grant's scope; everything else throws. */
  store: LosslessStore;
}

/** @throws Error saying recall is unavailable when the store cannot be used. */
export function requireStore(scope: RecallScope): LosslessStore {
  const store = scope.store();
  if (store === undefined) {
    throw new Error("Lossless recall is unavailable: the engine's store could not be opened (see the logs)");
  }
  return store;
}
