/**
 * The token-counter seam. Counts must be deterministic and cheap enough to run on every message of
 * a turn; callers cache per message. A counter never throws on odd input: unknown content counts
 * by its JSON length.
 */
import type { AgentMessage } from "../messages.js";

export interface TokenCounter {
  /** Stable id, recorded with reports so figures from different counters are not mixed. */
  readonly id: string;
  countText(text: string): number;
  countMessage(message: AgentMessage): number;
}
