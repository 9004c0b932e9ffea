/**
 * Errors of the lossless engine's store. They stay inside the engine: the engine fails open (the
 * host's messages, the runtime's compaction) instead of letting a store failure reach a turn.
 */
import { ClewError } from "@clew/core";

/** The database could not be opened, migrated, read or written. `operation` names the call. */
export class LosslessStoreError extends ClewError {
  readonly operation: string;
  readonly location: string;

  constructor(operation: string, location: string, cause: unknown) {
    const detail = cause instanceof Error ? cause.message : String(cause);
    super(`Lossless store ${operation} failed (${location}): ${detail}`, {
      code: "lossless_store_failed",
      category: "system",
      cause,
    });
    this.operation = operation;
    this.location = location;
  }
}

/**
 * A compaction's edits no longer match the context view (an item moved or was replaced since the
 * compaction read it). Nothing was written; the compaction can be planned again.
 */
export class LosslessStoreConflictError extends ClewError {
  readonly sessionId: string;

  constructor(sessionId: string, detail: string) {
    super(`Lossless store conflict in session "${sessionId}": ${detail}`, {
      code: "lossless_store_conflict",
      category: "system",
    });
    this.sessionId = sessionId;
  }
}
