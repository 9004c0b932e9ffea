import { AsyncLocalStorage } from "node:async_hooks";
import { ClewError, SessionTargetConflictError } from "../errors.js";
import type {
  CompactParams,
  CompactResult,
  ContextEngineRuntimeContext,
  ContextEngineSessionTarget,
} from "./types.js";

/** What the runtime's own (summary) compaction receives from `delegateCompactionToRuntime`. */
export interface RuntimeCompactionRequest {
  [key: string]: unknown;
  agentId?: string;
  sessionId: string;
  sessionKey?: string;
  sessionTarget?: ContextEngineSessionTarget;
  tokenBudget?: number;
  currentTokenCount?: number;
  force?: boolean;
  customInstructions?: string;
  abortSignal?: AbortSignal;
  workspaceDir: string;
  /** The caller's runtimeContext object itself, passed by reference. */
  runtimeContext?: ContextEngineRuntimeContext;
}

/** The runtime's compaction. Must honour `abortSignal` and never report a no-op as compacted. */
export type RuntimeCompactor = (request: RuntimeCompactionRequest) => Promise<CompactResult>;

const runtimeCompactorScope = new AsyncLocalStorage<RuntimeCompactor>();

/**
 * Runs `work` with `compactor` reachable from `delegateCompactionToRuntime`. The host wraps every
 * engine call in this, so an engine written for OpenClaw, which calls the delegate with nothing but
 * its params, reaches the compactor of the host that called it, with no process-wide state.
 */
export function runWithRuntimeCompactor<T>(compactor: RuntimeCompactor, work: () => T): T {
  return runtimeCompactorScope.run(compactor, work);
}

export class RuntimeCompactionUnavailableError extends ClewError {
  constructor() {
    super(
      "delegateCompactionToRuntime was called outside a host engine call, so there is no runtime compaction to delegate to",
      { code: "runtime_compaction_unavailable", category: "system" },
    );
  }
}

/**
 * Runs the host's built-in summary compaction for an engine that does not compact itself:
 * `compact(params) { return delegateCompactionToRuntime(params); }`.
 *
 * Forwards the caller identity (params over runtimeContext), the budget, the abort signal and
 * `customInstructions`; `currentTokenCount` comes from runtimeContext when params lack it. Never
 * forwards `sessionFile`. `compactionTarget` is ignored: the runtime compactor has no such knob.
 * Throws `SessionTargetConflictError` before compacting when `sessionTarget` names another
 * session, agent or key than the caller.
 */
export async function delegateCompactionToRuntime(params: CompactParams): Promise<CompactResult> {
  const compactor = runtimeCompactorScope.getStore();
  if (compactor === undefined) throw new RuntimeCompactionUnavailableError();
  const runtimeContext = params.runtimeContext;
  // Identity and counts are validated below; the raw runtimeContext values must not leak past that.
  const {
    sessionFile: _sessionFile,
    agentId: _agentId,
    sessionKey: _sessionKey,
    currentTokenCount: _currentTokenCount,
    ...contextFields
  } = runtimeContext ?? {};
  const agentId = trimmed(params.agentId) ?? trimmed(runtimeContext?.agentId);
  const sessionId = params.sessionId.trim();
  const sessionKey = trimmed(params.sessionKey) ?? trimmed(runtimeContext?.sessionKey);
  const sessionTarget = params.sessionTarget ?? runtimeContext?.sessionTarget;
  assertTargetMatchesCaller(sessionTarget, { agentId, sessionId, sessionKey });
  const currentTokenCount = params.currentTokenCount ?? positiveInteger(runtimeContext?.currentTokenCount);
  const request: RuntimeCompactionRequest = {
    ...contextFields,
    sessionId,
    workspaceDir:
      typeof runtimeContext?.workspaceDir === "string" ? runtimeContext.workspaceDir : process.cwd(),
  };
  assignDefined(request, {
    agentId,
    sessionKey,
    sessionTarget,
    tokenBudget: params.tokenBudget,
    currentTokenCount,
    force: params.force,
    customInstructions: params.customInstructions,
    abortSignal: params.abortSignal,
    runtimeContext,
  });
  return compactor(request);
}

function assertTargetMatchesCaller(
  target: ContextEngineSessionTarget | undefined,
  caller: { agentId: string | undefined; sessionId: string; sessionKey: string | undefined },
): void {
  if (target === undefined) return;
  const conflicts: string[] = [];
  const targetAgent = trimmed(target.agentId);
  const targetSession = trimmed(target.sessionId);
  const targetKey = trimmed(target.sessionKey);
  if (targetAgent !== undefined && caller.agentId !== undefined && targetAgent !== caller.agentId)
    conflicts.push("agent");
  if (targetSession !== undefined && targetSession !== caller.sessionId) conflicts.push("session");
  if (targetKey !== undefined && caller.sessionKey !== undefined && targetKey !== caller.sessionKey)
    conflicts.push("key");
  const keyAgent = agentIdOfSessionKey(targetKey ?? caller.sessionKey);
  const agent = targetAgent ?? caller.agentId;
  if (keyAgent !== undefined && agent !== undefined && keyAgent !== agent) conflicts.push("key agent prefix");
  if (conflicts.length > 0) {
    throw new SessionTargetConflictError(
      `Context-engine successor target conflicts with the caller session identity (${conflicts.join(", ")})`,
    );
  }
}

/** Session keys look like `agent:<agentId>:<name>`; returns the agent part when present. */
export function agentIdOfSessionKey(sessionKey: string | undefined): string | undefined {
  if (sessionKey === undefined) return undefined;
  const parts = sessionKey.split(":");
  return parts[0] === "agent" && parts.length >= 3 && parts[1] ? parts[1] : undefined;
}

function trimmed(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  const result = value.trim();
  return result.length > 0 ? result : undefined;
}

function positiveInteger(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? Math.floor(value) : undefined;
}

function assignDefined(target: Record<string, unknown>, values: Record<string, unknown>): void {
  for (const [key, value] of Object.entries(values)) if (value !== undefined) target[key] = value;
}
