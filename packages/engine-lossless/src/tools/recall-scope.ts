/**
 * What the recall tools are bound to: one session of one engine's store. Tools are made per
 * session (`LosslessEngine.tools`) because a tool call carries no session of its own.
 */
import type { TokenCounter } from "@clew/core";
import type { LosslessStore } from "../store/store.js";

export interface RecallScope {
  sessionId: string;
  /** The store, or undefined when it is unusable; the tools then fail with a clear error. */
  store: () => LosslessStore | undefined;
  counter: TokenCounter;
}

/** @throws Error saying recall is unavailable when the store cannot be used. */
export function requireStore(scope: RecallScope): LosslessStore {
  const store = scope.store();
  if (store === undefined) {
    throw new Error("Lossless recall is unavailable: the engine's store could not be opened (see the logs)");
  }
  return store;
}
