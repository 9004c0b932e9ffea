/**
 * What the host needs from a stored session. The transcript store behind it owns persistence;
 * the host only reads history, appends a turn's messages, and lets `maintain` rewrite entries.
 *
 * Contract:
 * - `messages()` returns the active history, oldest first, as the engine pipeline should see it.
 * - `append` is append-only and durable once it resolves; it never rewrites earlier entries.
 * - `rewriteTranscriptEntries` is the only way to change stored entries. It is atomic: either
 *   every replacement lands or none does, and entries it does not name are kept.
 * - `flush` (when present) is called once at the end of each turn, so the store's default fsync
 *   policy ("turn") syncs once per turn rather than per message.
 * - `adoptSuccessor` opens the session a compaction rotated to; without it the host keeps the
 *   current session and logs that the successor was not adopted.
 */
import type {
  ContextEngineSessionTarget,
  TranscriptRewriteRequest,
  TranscriptRewriteResult,
} from "../context-engine/types.js";
import type { AgentMessage } from "../messages.js";

export interface HostSession {
  readonly agentId: string;
  readonly sessionId: string;
  readonly sessionKey: string;
  readonly sessionFile: string;
  /** The store that scopes the session, reported in `sessionTarget.storePath`. */
  readonly storePath?: string;
  /** Whether the transcript existed before this process opened it; bootstrap runs only then. */
  readonly existedBefore: boolean;
  messages(): Promise<AgentMessage[]>;
  append(messages: readonly AgentMessage[]): Promise<void>;
  rewriteTranscriptEntries(request: TranscriptRewriteRequest): Promise<TranscriptRewriteResult>;
  /** Makes the turn's appends durable; the host calls it at the end of every turn. */
  flush?(): Promise<void>;
  adoptSuccessor?(successor: SessionSuccessor): Promise<HostSession>;
}

/** Where a compaction says the session continues. */
export interface SessionSuccessor {
  sessionId?: string;
  sessionFile?: string;
  sessionTarget?: ContextEngineSessionTarget;
}

export function sessionTargetOf(session: HostSession): ContextEngineSessionTarget {
  const target: ContextEngineSessionTarget = {
    agentId: session.agentId,
    sessionId: session.sessionId,
    sessionKey: session.sessionKey,
  };
  if (session.storePath !== undefined) target.storePath = session.storePath;
  return target;
}
