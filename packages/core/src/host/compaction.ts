import { abortReason, isAbortForSignal } from "../context-engine/abort.js";
import { compactWithSafetyTimeout } from "../context-engine/compaction-timeout.js";
import { assertContextEngineHostSupport } from "../context-engine/host-requirements.js";
import type { CompactParams, CompactResult, ContextEngine } from "../context-engine/types.js";
import { describeError } from "../errors.js";
import type { ContextEngineHost, HostModel } from "./context-engine-host.js";
import type { CompactionTrigger } from "./host-options.js";
import { type HostSession, type SessionSuccessor, sessionTargetOf } from "./host-session.js";
import { maintainSession } from "./session-maintenance.js";

export interface CompactionRequest {
  trigger: CompactionTrigger;
  compactionTarget: "budget" | "threshold";
  forceReason?: "manual" | "preflight_required";
  preflightCompactionTrigger?: "tokens" | "transcript_bytes";
  currentTokenCount?: number;
  customInstructions?: string;
  tokenBudget?: number;
  model?: HostModel;
  signal?: AbortSignal;
}

export interface CompactionOutcome {
  trigger: CompactionTrigger;
  result: CompactResult;
  /** The session after compaction: the successor when the engine rotated it. */
  session: HostSession;
}

/**
 * One compaction through the engine, under the watchdog. Engine failures and timeouts come back as
 * `ok: false`; only a caller cancellation rejects. `beforeCompaction` fires for every attempt,
 * `afterCompaction` only for one that reduced context; then the successor session (if any) is
 * adopted and maintenance runs against it.
 */
export async function compactSession(
  host: ContextEngineHost,
  session: HostSession,
  request: CompactionRequest,
): Promise<CompactionOutcome> {
  const { engine } = await host.engine();
  const event = {
    sessionId: session.sessionId,
    sessionKey: session.sessionKey,
    engineId: engine.info.id,
    trigger: request.trigger,
    ownsCompaction: engine.info.ownsCompaction === true,
  };
  if (request.signal?.aborted) throw abortReason(request.signal);
  host.hooks?.beforeCompaction?.(event);
  const params = compactParams(host, engine, session, request);
  let result: CompactResult;
  try {
    result = await host.withRuntime(session, () =>
      compactWithSafetyTimeout(engine, params, {
        timeoutMs: host.compactionTimeoutMs(),
        signal: request.signal,
      }),
    );
  } catch (error) {
    if (isAbortForSignal(error, request.signal)) throw error;
    host.logger.warn(`context engine compaction failed: ${describeError(error)}`);
    result = { ok: false, compacted: false, reason: describeError(error) };
  }
  if (!result.ok || !result.compacted) return { trigger: request.trigger, result, session };
  host.hooks?.afterCompaction?.({ ...event, result });
  const successor = await adoptSuccessor(host, session, result);
  await maintainSession(host, engine, successor, "compaction", request.model);
  return { trigger: request.trigger, result, session: successor };
}

/** `/compact [instructions]`: forced, toward the threshold, reason `manual`. */
export async function compactManually(
  host: ContextEngineHost,
  session: HostSession,
  options: { customInstructions?: string; model?: HostModel; signal?: AbortSignal } = {},
): Promise<CompactionOutcome> {
  const { engine } = await host.engine();
  assertContextEngineHostSupport(engine.info, "manual-compact", host.hostDescriptor);
  return compactSession(host, session, {
    trigger: "manual",
    compactionTarget: "threshold",
    forceReason: "manual",
    ...options,
  });
}

/**
 * Compaction the runtime requires before the next run (the transcript grew past a token or byte
 * limit): forced, toward the budget, reason `preflight_required`. An engine that owns compaction
 * and maintains in the background gets it as deferred work in its next maintenance pass instead;
 * when that cannot be scheduled the answer is `ok: false`, `deferred_compaction_not_scheduled`.
 */
export async function compactPreflight(
  host: ContextEngineHost,
  session: HostSession,
  options: {
    trigger: "tokens" | "transcript_bytes";
    currentTokenCount?: number;
    model?: HostModel;
    signal?: AbortSignal;
  },
): Promise<CompactionOutcome> {
  const { engine } = await host.engine();
  const info = engine.info;
  if (
    info.ownsCompaction === true &&
    info.turnMaintenanceMode === "background" &&
    engine.maintain !== undefined
  ) {
    const scheduled = await maintainSession(host, engine, session, "compaction", options.model);
    const result: CompactResult = scheduled
      ? { ok: true, compacted: false, reason: "deferred to background context-engine maintenance" }
      : {
          ok: false,
          compacted: false,
          reason:
            "deferred_compaction_not_scheduled: failed to schedule background context-engine maintenance",
        };
    return { trigger: "preflight", result, session };
  }
  const { trigger, ...rest } = options;
  return compactSession(host, session, {
    ...rest,
    trigger: "preflight",
    compactionTarget: "budget",
    forceReason: "preflight_required",
    preflightCompactionTrigger: trigger,
  });
}

/**
 * The runtime's own threshold compaction after a turn, for engines that do not own compaction:
 * when the context passed `window − reserve` (the effective reserve), summary compaction runs
 * directly (not through the engine's `compact`), as OpenClaw's built-in auto-compaction does. Off with
 * `agents.defaults.compaction.enabled: false`. Never throws; failures come back as `ok: false`.
 */
export async function compactOnThreshold(
  host: ContextEngineHost,
  engine: ContextEngine,
  session: HostSession,
  options: { model: HostModel; contextTokens: number; signal?: AbortSignal },
): Promise<CompactionOutcome | undefined> {
  if (engine.info.ownsCompaction === true || host.config?.agents?.defaults?.compaction?.enabled === false)
    return undefined;
  const window = host.contextWindow(options.model);
  if (options.contextTokens <= window - host.effectiveReserveTokens(window)) return undefined;
  const event = {
    sessionId: session.sessionId,
    sessionKey: session.sessionKey,
    engineId: engine.info.id,
    trigger: "threshold" as const,
    ownsCompaction: false,
  };
  host.hooks?.beforeCompaction?.(event);
  let result: CompactResult;
  try {
    result = await host.runtimeCompact(session, {
      sessionId: session.sessionId,
      sessionKey: session.sessionKey,
      agentId: session.agentId,
      workspaceDir:
        typeof host.runtimeContext(session).workspaceDir === "string"
          ? String(host.runtimeContext(session).workspaceDir)
          : process.cwd(),
      tokenBudget: window,
      currentTokenCount: options.contextTokens,
      force: false,
      ...(options.signal === undefined ? {} : { abortSignal: options.signal }),
    });
  } catch (error) {
    if (isAbortForSignal(error, options.signal)) throw error;
    host.logger.warn(`threshold compaction failed: ${describeError(error)}`);
    result = { ok: false, compacted: false, reason: describeError(error) };
  }
  if (result.ok && result.compacted) host.hooks?.afterCompaction?.({ ...event, result });
  return { trigger: "threshold", result, session };
}

function compactParams(
  host: ContextEngineHost,
  engine: ContextEngine,
  session: HostSession,
  request: CompactionRequest,
): CompactParams {
  const reasons = withoutUndefined({
    tokenBudget: request.tokenBudget,
    currentTokenCount: request.currentTokenCount,
    forceReason: request.forceReason,
    preflightCompactionTrigger: request.preflightCompactionTrigger,
  });
  return {
    sessionId: session.sessionId,
    sessionKey: session.sessionKey,
    agentId: session.agentId,
    sessionTarget: sessionTargetOf(session),
    sessionFile: session.sessionFile,
    force: true,
    compactionTarget: request.compactionTarget,
    runtimeSettings: host.runtimeSettings(engine, request.model, request.tokenBudget),
    // OpenClaw versions disagree on whether the reasons live at the top level or in
    // runtimeContext; sending both serves engines written for either.
    runtimeContext: host.runtimeContext(session, { trigger: request.trigger, ...reasons }),
    ...reasons,
    ...withoutUndefined({ customInstructions: request.customInstructions }),
  };
}

async function adoptSuccessor(
  host: ContextEngineHost,
  session: HostSession,
  result: CompactResult,
): Promise<HostSession> {
  const detail = result.result;
  const successorId = detail?.sessionTarget?.sessionId ?? detail?.sessionId;
  const successorFile = detail?.sessionFile;
  const rotated =
    (successorId !== undefined && successorId !== session.sessionId) || successorFile !== undefined;
  if (!rotated) return session;
  if (session.adoptSuccessor === undefined) {
    host.logger.warn(
      `context engine named successor session ${successorId ?? successorFile}, which this store cannot open`,
    );
    return session;
  }
  const successor: SessionSuccessor = withoutUndefined({
    sessionId: successorId,
    sessionFile: successorFile,
    sessionTarget: detail?.sessionTarget,
  });
  return session.adoptSuccessor(successor);
}

function withoutUndefined<T extends Record<string, unknown>>(
  values: T,
): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined)) as {
    [K in keyof T]?: Exclude<T[K], undefined>;
  };
}
