/**
 * The context-engine seam: what an engine implements and what the host promises it.
 *
 * Member and field names match OpenClaw's `ContextEngine` so an engine written for either host
 * runs on the other. This file holds types only; implementations depend on it, never the reverse.
 *
 * The host's side of the contract (enforced in one place, `guarded-engine.ts` and the host):
 * - A throwing method never breaks the user's turn. The engine is quarantined for the process and
 *   the call is answered by the built-in `legacy` engine; only `compact` and
 *   `prepareSubagentSpawn` rethrow (the caller must know a compaction or spawn did not happen).
 * - An abort (the call's `abortSignal` fired) is rethrown and never quarantines.
 * - `compact` is always bounded by a watchdog (default 180 s) and gets an `abortSignal` that fires
 *   on timeout or cancellation.
 * - Engine instances are never mutated by the host; a frozen shared instance is fine.
 */
import type { AgentMessage } from "../messages.js";
import type {
  ContextEngineMaintenanceResult,
  ContextEngineRuntimeContext,
  ContextEngineRuntimeSettings,
  ContextEngineSessionTarget,
} from "./runtime-context.js";

export type * from "./runtime-context.js";

/** Operations whose host requirements an engine can declare. */
export type ContextEngineOperation = "agent-run" | "manual-compact" | "subagent-spawn";

/** What a host can do for an engine. Closed list, extended only with new contract versions. */
export type ContextEngineHostCapability =
  | "bootstrap"
  | "assemble-before-prompt"
  | "after-turn"
  | "maintain"
  | "compact"
  | "runtime-llm-complete"
  | "thread-bootstrap-projection";

export interface ContextEngineHostRequirements {
  /** Capabilities the host must have before it may run the operation at all. */
  requiredCapabilities: ContextEngineHostCapability[];
  /** Appended to the host's error when a capability is missing; tell the user what to do. */
  unsupportedMessage?: string;
}

/** Host-added parameters an engine may opt out of through `info.acceptedHostParams`. */
export type ContextEngineHostParam =
  | "sessionKey"
  | "prompt"
  | "runtimeSettings"
  | "sessionTarget"
  | "runtimeContext"
  | "abortSignal";

export interface ContextEngineInfo {
  /** Non-empty. Display and log metadata only: it need not equal the registered id. */
  id: string;
  /** Non-empty human-readable name. */
  name: string;
  version?: string;
  /**
   * True: the engine owns compaction. The host turns off its own threshold compaction and skips
   * the pre-prompt overflow check (unless `assemble` says `preassembly_may_overflow`). The
   * engine's `compact` still serves `/compact` and provider-overflow recovery.
   */
  ownsCompaction?: boolean;
  /** `background` defers `maintain` past the reply; unset behaves as `foreground`. */
  turnMaintenanceMode?: "foreground" | "background";
  /** Per-operation capabilities; the host fails closed before the run when one is missing. */
  hostRequirements?: Partial<Record<ContextEngineOperation, ContextEngineHostRequirements>>;
  /**
   * When present (even empty), every host-added parameter not listed is removed before a call.
   * `compact` always keeps `abortSignal`. When absent, the engine receives every host parameter.
   */
  acceptedHostParams?: ContextEngineHostParam[];
}

interface SessionParams {
  sessionId: string;
  sessionKey?: string;
}

interface LifecycleParams extends SessionParams {
  sessionTarget?: ContextEngineSessionTarget;
  sessionFile: string;
  runtimeSettings?: ContextEngineRuntimeSettings;
  runtimeContext?: ContextEngineRuntimeContext;
}

export type BootstrapParams = LifecycleParams;

export interface BootstrapResult {
  bootstrapped: boolean;
  importedMessages?: number;
  reason?: string;
}

export interface MaintainParams extends LifecycleParams {
  abortSignal?: AbortSignal;
}

export interface IngestParams extends SessionParams {
  message: AgentMessage;
  isHeartbeat?: boolean;
}

export interface IngestResult {
  /** False for duplicates and no-ops. */
  ingested: boolean;
}

export interface IngestBatchParams extends SessionParams {
  messages: AgentMessage[];
  isHeartbeat?: boolean;
}

export interface IngestBatchResult {
  ingestedCount: number;
}

export interface AfterTurnParams extends LifecycleParams {
  /** The whole conversation snapshot; the new turn is `messages.slice(prePromptMessageCount)`. */
  messages: AgentMessage[];
  prePromptMessageCount: number;
  autoCompactionSummary?: string;
  isHeartbeat?: boolean;
  tokenBudget?: number;
}

export interface AssembleParams extends SessionParams {
  /** The session history after the host's sanitize, validate and limit pipeline. */
  messages: AgentMessage[];
  /** Tokens the returned messages may use: window minus reserve minus system prompt and prompt. */
  tokenBudget?: number;
  /** Names of the tools available this run. */
  availableTools?: Set<string>;
  citationsMode?: "on" | "off" | "auto";
  /** Model id of this run. */
  model?: string;
  /** The incoming user prompt of this turn; it is not part of `messages`. */
  prompt?: string;
  runtimeSettings?: ContextEngineRuntimeSettings;
  runtimeContext?: ContextEngineRuntimeContext;
}

export interface ContextEngineProjection {
  mode: "per_turn" | "thread_bootstrap";
  /** Stable; a change makes persistent-thread backends start a new thread. */
  epoch?: string;
  /** Diagnostic only. */
  fingerprint?: string;
}

export interface AssembleResult {
  /** Exactly what the model sees, in order. */
  messages: AgentMessage[];
  /** The engine's own estimate, for diagnostics and thresholds. */
  estimatedTokens: number;
  /**
   * `assembled` (default): the host's overflow check estimates the returned messages only.
   * `preassembly_may_overflow`: the host uses the larger of the assembled and pre-assembly
   * estimates, and keeps the check on even when the engine owns compaction.
   */
  promptAuthority?: "assembled" | "preassembly_may_overflow";
  /** Prepended to this run's system prompt. */
  systemPromptAddition?: string;
  contextProjection?: ContextEngineProjection;
  /**
   * Clew extension (other hosts ignore it): the index in `messages` where a part that changes with
   * every request starts (query-aware evidence for the pending prompt); the messages before it
   * come back unchanged at the head of the next assembly unless a compaction comes between. A
   * provider whose prompt cache works from explicit breakpoints (Anthropic's) is given one there,
   * so the next turn can read that prefix. Absent: nothing in `messages` changes per request.
   */
  cacheBoundary?: number;
}

export interface CompactParams extends SessionParams {
  agentId?: string;
  sessionTarget?: ContextEngineSessionTarget;
  sessionFile?: string;
  tokenBudget?: number;
  force?: boolean;
  forceReason?: "manual" | "preflight_required";
  preflightCompactionTrigger?: "tokens" | "transcript_bytes";
  currentTokenCount?: number;
  compactionTarget?: "budget" | "threshold";
  customInstructions?: string;
  runtimeSettings?: ContextEngineRuntimeSettings;
  runtimeContext?: ContextEngineRuntimeContext;
  /** Fires on the host's watchdog timeout or the caller's cancellation; engines should stop. */
  abortSignal?: AbortSignal;
}

export interface CompactResult {
  ok: boolean;
  /** True only when context was actually reduced: the host spends a retry on it. */
  compacted: boolean;
  reason?: string;
  result?: {
    summary?: string;
    firstKeptEntryId?: string;
    tokensBefore: number;
    tokensAfter?: number;
    details?: unknown;
    /** Successor session id when compaction rotated the session. */
    sessionId?: string;
    /** Typed successor; preferred over `sessionId`/`sessionFile`. */
    sessionTarget?: ContextEngineSessionTarget;
    /** Deprecated raw successor path, still read for older engines. */
    sessionFile?: string;
  };
}

export interface SubagentSpawnParams {
  parentSessionKey: string;
  childSessionKey: string;
  contextMode?: "isolated" | "fork";
  parentSessionId?: string;
  parentSessionFile?: string;
  childSessionId?: string;
  childSessionFile?: string;
  ttlMs?: number;
}

export interface SubagentSpawnPreparation {
  /** Called when the spawn fails after preparation succeeded, or is cancelled. */
  rollback: () => void | Promise<void>;
}

export type SubagentEndReason = "deleted" | "completed" | "swept" | "released";

export interface SubagentEndedParams {
  childSessionKey: string;
  reason: SubagentEndReason;
}

/**
 * A context engine decides what the model sees on every run.
 *
 * Engines may throw from any method; the host isolates the failure (see the file comment).
 * Engines must never mutate the `messages` arrays they are given.
 */
export interface ContextEngine {
  /** Identity and declared behaviour. Read again by the host at each decision. */
  readonly info: ContextEngineInfo;
  /**
   * Called once per session per host process, before the first turn of a session whose
   * transcript already existed. Import or index prior history here. Errors are logged only.
   */
  bootstrap?(params: BootstrapParams): Promise<BootstrapResult>;
  /**
   * Transcript maintenance after bootstrap, after each successful turn and after compaction.
   * Change stored entries only through `runtimeContext.rewriteTranscriptEntries`. Runs after
   * the reply when `info.turnMaintenanceMode` is `background`.
   */
  maintain?(params: MaintainParams): Promise<ContextEngineMaintenanceResult>;
  /** Store one message. Return `{ ingested: false }` for duplicates; must be idempotent. */
  ingest(params: IngestParams): Promise<IngestResult>;
  /** Store a completed turn as one unit. Used instead of `ingest` when present. */
  ingestBatch?(params: IngestBatchParams): Promise<IngestBatchResult>;
  /** After a successful run. When present, the host calls it instead of ingest/ingestBatch. */
  afterTurn?(params: AfterTurnParams): Promise<void>;
  /**
   * Build the model context for this run within `tokenBudget`. A throw makes the host fall
   * back to its own pipeline messages for this run and quarantines the engine.
   */
  assemble(params: AssembleParams): Promise<AssembleResult>;
  /**
   * Reduce context. Must not report `compacted: true` when nothing was reduced. A non-owning
   * engine that cannot compact should call `delegateCompactionToRuntime(params)`: a no-op here
   * disables `/compact` and overflow recovery. Honour `abortSignal`.
   */
  compact(params: CompactParams): Promise<CompactResult>;
  /** Prepare shared state before a child run starts; may return a rollback handle. */
  prepareSubagentSpawn?(params: SubagentSpawnParams): Promise<SubagentSpawnPreparation | undefined>;
  /** Best-effort notification that a child session ended; errors are only logged. */
  onSubagentEnded?(params: SubagentEndedParams): Promise<void>;
  /** Release resources. The host calls it once on shutdown or reload. */
  dispose?(): Promise<void>;
  /**
   * Clew extension (not part of OpenClaw's contract; OpenClaw engines simply lack it): a short
   * section about the engine's own state for one session (with its `sessionKey` when the host
   * has it), shown by `/status`, `clew status` and `clew context`. Read-only and cheap (no model calls). Answer undefined for nothing to show. A
   * throw only leaves the section out: it never quarantines the engine.
   */
  describeStatus?(params: {
    sessionId: string;
    sessionKey?: string;
  }): Promise<ContextEngineStatusSection | undefined>;
  /**
   * Clew extension (OpenClaw hosts never call it): the user deleted a session. The engine must no
   * longer reach it, or the conversation its `sessionKey` named, from any other session (recall
   * across a conversation's earlier sessions); it may also delete what it keeps of them. Best
   * effort: a throw is logged and never quarantines the engine, and an engine the host holds is
   * told even once quarantined. Not replayed: an engine the host does not hold at that moment (a
   * host that resolved `legacy` instead, another engine in the slot) is never told.
   */
  onSessionDeleted?(params: SessionDeletedParams): Promise<void>;
}

/** The session the user deleted, and the conversation (host session key) it was the current one of. */
export interface SessionDeletedParams {
  sessionId: string;
  sessionKey?: string;
}

/** What `describeStatus` answers: a titled block of lines, and the same facts as JSON. */
export interface ContextEngineStatusSection {
  /** A few words, e.g. `Lossless store`. */
  title: string;
  /** One fact per line, without the title. */
  lines: string[];
  /** Machine-readable form (for `--json`); JSON-serializable. */
  data?: Record<string, unknown>;
}

/** What a factory receives when the host resolves an engine. */
export interface ContextEngineFactoryContext {
  config?: unknown;
  agentDir?: string;
  workspaceDir?: string;
}

/** Builds an engine. Runs once per resolution; it may return a shared (even frozen) instance. */
export type ContextEngineFactory = (
  context: ContextEngineFactoryContext,
) => ContextEngine | Promise<ContextEngine>;

/** The methods the host wraps for fault isolation, in the order of a turn. */
export const CONTEXT_ENGINE_LIFECYCLE_METHODS = [
  "bootstrap",
  "maintain",
  "ingest",
  "ingestBatch",
  "afterTurn",
  "assemble",
  "compact",
  "prepareSubagentSpawn",
  "onSubagentEnded",
] as const;

export type ContextEngineLifecycleMethod = (typeof CONTEXT_ENGINE_LIFECYCLE_METHODS)[number];
