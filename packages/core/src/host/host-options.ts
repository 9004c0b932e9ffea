import type { ClewConfig } from "../config/types.js";
import type { ContextEngineHostDescriptor } from "../context-engine/host-requirements.js";
import type { ContextEngineRegistry } from "../context-engine/registry.js";
import type { RuntimeCompactionRequest } from "../context-engine/runtime-compaction.js";
import type { CompactResult, ContextEngineRuntimeContext } from "../context-engine/types.js";
import type { Logger } from "../logger.js";
import type { TokenCounter } from "../tokens/token-counter.js";
import type { HostSession } from "./host-session.js";

/** The runtime's own compaction, bound to the session being compacted. */
export type SessionRuntimeCompactor = (
  request: RuntimeCompactionRequest,
  session: HostSession,
) => Promise<CompactResult>;

/** `maintain`: an engine's own compaction during maintenance, as it reported it (see `ContextEngineMaintenanceResult`). */
export type CompactionTrigger = "overflow" | "precheck" | "manual" | "preflight" | "threshold" | "maintain";

export interface CompactionHookEvent {
  sessionId: string;
  sessionKey: string;
  engineId: string;
  trigger: CompactionTrigger;
  ownsCompaction: boolean;
}

export interface ContextEngineHostHooks {
  /** Before every compaction attempt. */
  beforeCompaction?(event: CompactionHookEvent): void;
  /** Only after a compaction that succeeded and reduced context. */
  afterCompaction?(event: CompactionHookEvent & { result: CompactResult }): void;
}

export interface ContextEngineHostOptions {
  registry: ContextEngineRegistry;
  config?: ClewConfig;
  logger: Logger;
  agentDir?: string;
  workspaceDir?: string;
  /** Defaults to Clew's embedded runner with `runtime-llm-complete` when `llm` is given. */
  hostDescriptor?: ContextEngineHostDescriptor;
  /** What `delegateCompactionToRuntime` (and so `legacy`) reaches. */
  runtimeCompaction?: SessionRuntimeCompactor;
  /** A model call offered to engines as `runtimeContext.llm` (with the `ref` of its model). */
  llm?: ContextEngineRuntimeContext["llm"];
  tokenCounter?: TokenCounter;
  hooks?: ContextEngineHostHooks;
  now?: () => number;
}

/** Tokens kept free for the reply when config says nothing (OpenClaw's floor). */
export const DEFAULT_RESERVE_TOKENS = 20_000;
/**
 * Overflow compactions (compaction then retry) allowed for one model call; a call that goes through
 * gives the next call of the tool loop its own attempts.
 */
export const MAX_OVERFLOW_COMPACTION_ATTEMPTS = 3;
/** Multiplier on estimates in the pre-prompt check: chars/4 undercounts code and JSON. */
export const PRECHECK_SAFETY_MARGIN = 1.2;
