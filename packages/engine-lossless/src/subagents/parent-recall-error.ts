/**
 * A subagent's recall of its parent's history was refused: the session holds no grant (only forked
 * subagents get one), its grant ended with the subagent or expired, or the id asked for lies beyond
 * what the grant covers. Recall tools throw it, so the model sees the reason as an error result.
 */
import { ClewError } from "@clew/core";

export type ParentRecallRefusal = "no-grant" | "ended" | "expired" | "out-of-scope";

export class ParentRecallError extends ClewError {
  readonly refusal: ParentRecallRefusal;

  constructor(refusal: ParentRecallRefusal, message: string) {
    super(message, { code: "lossless_parent_recall_refused", category: "user" });
    this.refusal = refusal;
  }
}
