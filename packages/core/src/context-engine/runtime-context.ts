/**
 * What a host hands an engine about the run and the session, besides the call's own parameters:
 * run facts (`ContextEngineRuntimeSettings`), the open `runtimeContext` record with the
 * sanctioned transcript rewrite and model call, and the session target. Part of the seam in
 * `types.ts`, which re-exports everything here.
 */
import type { AgentMessage } from "../messages.js";
/** Storage-neutral identity of a session, used for successors after a compaction rotates it. */
export interface ContextEngineSessionTarget {
  agentId?: string;
  sessionId?: string;
  sessionKey?: string;
  /** The store that scopes the session (a database path, or the agent's sessions folder). */
  storePath?: string;
  threadId?: string | number;
}

export type ContextEngineReasonCode =
  | "provider_timeout"
  | "provider_unavailable"
  | "rate_limited"
  | "context_overflow"
  | "runtime_unavailable"
  | "unknown";

/** Schema v1 of the run facts a host hands to lifecycle hooks. Unknown values are `null`. */
export interface ContextEngineRuntimeSettings {
  schemaVersion: 1;
  runtime: {
    host: string;
    mode: "normal" | "fallback" | "degraded";
    harnessId: string | null;
    runtimeId: string | null;
  };
  model: {
    requested: string | null;
    resolved: string | null;
    provider: string | null;
    family: string | null;
  };
  contextEngineSelection: { selectedId: string | null; source: "configured" | "default" | "unknown" };
  executionHost: { id: string | null; label: string | null };
  limits: { promptTokenBudget: number | null; maxOutputTokens: number | null };
  diagnostics: {
    fallbackReason: ContextEngineReasonCode | null;
    degradedReason: ContextEngineReasonCode | null;
  };
}

export interface TranscriptRewriteReplacement {
  entryId: string;
  message: AgentMessage;
}

export interface TranscriptRewriteRequest {
  replacements: TranscriptRewriteReplacement[];
  /** Entries after the first replaced one that may be re-appended unchanged. */
  allowedRewriteSuffixEntryIds?: string[];
}

export interface TranscriptRewriteResult {
  changed: boolean;
  bytesFreed: number;
  rewrittenEntries: number;
  reason?: string;
}

export interface ContextEngineMaintenanceResult extends TranscriptRewriteResult {
  /**
   * Clew extension (other hosts ignore it): `maintain` compacted the engine's own context (an
   * engine that owns compaction and compacts in the background). The host reports it as a
   * compaction with trigger `maintain`, so session counts and the memory flush's "once per
   * compaction cycle" rule see it.
   */
  compaction?: { tokensBefore: number; tokensAfter: number };
}

export interface LlmCompleteParams {
  messages: AgentMessage[];
  systemPrompt?: string;
  maxTokens?: number;
  abortSignal?: AbortSignal;
}

export interface LlmCompleteResult {
  text: string;
  usage?: {
    input?: number;
    output?: number;
    cacheRead?: number;
    cacheWrite?: number;
    total?: number;
    /** Dollars the call cost, when the host knows the model's prices. */
    costUsd?: number;
  };
}

/**
 * Open record of host facts. The typed members are the ones engines rely on; hosts may add more
 * (compaction gets `workspaceDir`, `agentDir`, `config`, `provider`, `model`, `trigger`, ...).
 */
export interface ContextEngineRuntimeContext {
  [key: string]: unknown;
  /** Task working directory; `workspaceDir` stays the bootstrap workspace. */
  cwd?: string;
  /** True only in background maintenance the host opted into consuming deferred compaction. */
  allowDeferredCompactionExecution?: boolean;
  tokenBudget?: number;
  currentTokenCount?: number;
  sessionTarget?: ContextEngineSessionTarget;
  /** Only supplied to `maintain`: the one sanctioned way to change stored transcript entries. */
  rewriteTranscriptEntries?: (request: TranscriptRewriteRequest) => Promise<TranscriptRewriteResult>;
  /** A host-bound model call scoped to the session's agent, when the host has one. */
  llm?: {
    complete(params: LlmCompleteParams): Promise<LlmCompleteResult>;
    /** `provider/model` of the model it calls, when the host names it (Clew does). */
    readonly ref?: string;
  };
}
