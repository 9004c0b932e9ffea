import {
  DEFAULT_COMPACTION_TIMEOUT_MS,
  runWithCompactionWatchdog,
} from "../context-engine/compaction-timeout.js";
import {
  type ContextEngineHostDescriptor,
  embeddedHostDescriptor,
} from "../context-engine/host-requirements.js";
import { type ResolvedContextEngine, resolveContextEngine } from "../context-engine/resolve.js";
import {
  type RuntimeCompactionRequest,
  type RuntimeCompactor,
  runWithRuntimeCompactor,
} from "../context-engine/runtime-compaction.js";
import { buildContextEngineRuntimeSettings } from "../context-engine/runtime-settings.js";
import type {
  CompactResult,
  ContextEngine,
  ContextEngineRuntimeContext,
  ContextEngineRuntimeSettings,
  SessionDeletedParams,
  SubagentEndedParams,
} from "../context-engine/types.js";
import { describeError } from "../errors.js";
import { type AgentMessage, isAssistantMessage } from "../messages.js";
import { prepareHistory } from "../pipeline/prepare-history.js";
import { resolveTranscriptPolicy, type TranscriptPolicyTarget } from "../pipeline/transcript-policy.js";
import { pruneContext } from "../pruning/prune-context.js";
import {
  type ContextPruningConfig,
  type ContextPruningSettings,
  resolveContextPruningSettings,
} from "../pruning/settings.js";
import { withTokenCache } from "../tokens/cached-counter.js";
import { charEstimateTokenCounter } from "../tokens/estimate.js";
import type { TokenCounter } from "../tokens/token-counter.js";
import {
  type CompactionOutcome,
  type CompactionRequest,
  compactManually,
  compactPreflight,
  compactSession,
} from "./compaction.js";
import { type ContextEngineStatus, describeContextEngineStatus } from "./engine-status.js";
import { type ContextEngineHostOptions, DEFAULT_RESERVE_TOKENS } from "./host-options.js";
import { type HostSession, sessionTargetOf } from "./host-session.js";
import { MaintenanceScheduler } from "./maintenance.js";
import { type RunTurnParams, runContextEngineTurn, type TurnResult } from "./run-turn.js";
import { endSubagent, type SubagentSpawnRequest, spawnSubagent } from "./subagent.js";

/** The model facts a run hands to lifecycle hooks. */
export interface HostModel {
  id: string;
  provider?: string;
  /** pi-ai API family (`anthropic-messages`, `openai-completions`, ...); picks the transcript policy. */
  api?: string;
  /** Only when attested by the catalog. */
  family?: string;
  contextWindow: number;
}

/**
 * One agent's context-engine lifecycle: resolves the selected engine once (re-resolved on
 * `reload`), runs turns through it, compacts on request, brackets subagent spawns, and disposes it.
 * Every engine call runs with this host's runtime compaction reachable from
 * `delegateCompactionToRuntime`.
 */
export class ContextEngineHost {
  readonly hostDescriptor: ContextEngineHostDescriptor;
  readonly tokenCounter: TokenCounter;
  readonly maintenance: MaintenanceScheduler;
  private readonly options: ContextEngineHostOptions;
  private resolved: Promise<ResolvedContextEngine> | undefined;
  private readonly bootstrapped = new Set<string>();
  private disposed: Promise<void> | undefined;

  private readonly pruningSettings: ContextPruningSettings;

  constructor(options: ContextEngineHostOptions) {
    this.options = options;
    this.pruningSettings = resolveContextPruningSettings(
      (options.config?.agents?.defaults?.contextPruning ?? {}) as ContextPruningConfig,
    );
    this.hostDescriptor =
      options.hostDescriptor ?? embeddedHostDescriptor({ llmComplete: options.llm !== undefined });
    // Cached per message: the overflow check counts the whole history on every model call.
    this.tokenCounter = options.tokenCounter ?? withTokenCache(charEstimateTokenCounter);
    this.maintenance = new MaintenanceScheduler(options.logger);
  }

  get logger() {
    return this.options.logger;
  }

  get config() {
    return this.options.config;
  }

  get hooks() {
    return this.options.hooks;
  }

  now(): number {
    return (this.options.now ?? Date.now)();
  }

  /** The resolved engine, resolving it on first use. Never rejects because of a plugin. */
  engine(): Promise<ResolvedContextEngine> {
    if (this.disposed !== undefined) return Promise.reject(new Error("context engine host is disposed"));
    this.resolved ??= resolveContextEngine(this.options.registry, {
      config: this.options.config,
      logger: this.options.logger,
      now: () => this.now(),
      ...(this.options.agentDir === undefined ? {} : { agentDir: this.options.agentDir }),
      ...(this.options.workspaceDir === undefined ? {} : { workspaceDir: this.options.workspaceDir }),
    });
    return this.resolved;
  }

  /** Which engine is configured, which one runs, and why they differ. */
  async status(): Promise<ContextEngineStatus> {
    return describeContextEngineStatus(await this.engine(), this.options.registry, this.hostDescriptor);
  }

  runTurn(params: RunTurnParams): Promise<TurnResult> {
    return runContextEngineTurn(this, params);
  }

  /**
   * The model view of stored history: the sanitize, validate and limit pipeline under the
   * transcript policy of the model's API (`agents.defaults.historyLimit` user turns at most).
   */
  prepareHistory(messages: readonly AgentMessage[], model: HostModel): AgentMessage[] {
    const target: TranscriptPolicyTarget = { api: model.api ?? "", provider: model.provider ?? "" };
    const limit = this.options.config?.agents?.defaults?.historyLimit;
    return prepareHistory(messages, {
      policy: resolveTranscriptPolicy(target),
      ...(typeof limit === "number" && limit > 0 ? { maxUserTurns: limit } : {}),
    });
  }

  /**
   * Session pruning for one request (`agents.defaults.contextPruning`): after the provider's
   * prompt cache expired, old bulky tool results are trimmed in the request only. The last cache
   * touch is the newest assistant reply in `history`.
   */
  pruneForRequest(
    messages: AgentMessage[],
    history: readonly AgentMessage[],
    model: HostModel,
  ): AgentMessage[] {
    if (this.pruningSettings.mode === "off") return messages;
    const result = pruneContext(messages, {
      settings: this.pruningSettings,
      contextWindowTokens: this.contextWindow(model),
      now: this.now(),
      lastCacheTouchAt: lastReplyAt(history),
    });
    if (result.changed) {
      this.options.logger.debug(
        `session pruning trimmed ${result.softTrimmed} and cleared ${result.hardCleared} tool results (${result.charsBefore} → ${result.charsAfter} chars)`,
      );
    }
    return result.messages;
  }

  /** Reserve kept free for the reply, from config or the default floor. */
  reserveTokens(): number {
    const configured = this.options.config?.agents?.defaults?.compaction?.reserveTokens;
    return typeof configured === "number" && configured >= 0 ? configured : DEFAULT_RESERVE_TOKENS;
  }

  /**
   * The reserve a window can afford: `reserveTokens()`, but never more than leaves the prompt
   * `min(8,000, window / 2)` tokens. The 20,000-token default would otherwise leave a 16k model no
   * room at all: its engines got a budget of 1 token and sent the model nothing but the prompt.
   * Every budget the host derives (assemble, afterTurn, threshold compaction, the overflow check)
   * uses this one.
   */
  effectiveReserveTokens(window: number): number {
    return Math.max(0, Math.min(this.reserveTokens(), window - Math.min(8_000, Math.floor(window / 2))));
  }

  /**
   * The budget of a session's whole context on `model`, before the system prompt and the turn:
   * the window less the reserve it can afford, at least 1. `afterTurn` and `maintain` get it as
   * `tokenBudget` (assemble gets the finer figure, net of the system prompt and the turn).
   */
  contextBudget(model: HostModel): number {
    const window = this.contextWindow(model);
    return Math.max(1, window - this.effectiveReserveTokens(window));
  }

  /** The window used for budgets: the model's, capped by `agents.defaults.contextTokens`. */
  contextWindow(model: HostModel): number {
    const cap = this.options.config?.agents?.defaults?.contextTokens;
    return typeof cap === "number" && cap > 0 ? Math.min(cap, model.contextWindow) : model.contextWindow;
  }

  runtimeSettings(
    engine: ContextEngine,
    model: HostModel | undefined,
    promptTokenBudget?: number,
  ): ContextEngineRuntimeSettings {
    return buildContextEngineRuntimeSettings({
      requestedModel: model?.id,
      provider: model?.provider,
      family: model?.family,
      selectedEngineId: engine.info.id,
      executionHost: { id: this.hostDescriptor.id, label: this.hostDescriptor.label },
      promptTokenBudget,
      maxOutputTokens:
        model === undefined ? this.reserveTokens() : this.effectiveReserveTokens(this.contextWindow(model)),
    });
  }

  /** Host facts for lifecycle hooks. `rewriteTranscriptEntries` is added for maintenance only. */
  runtimeContext(session: HostSession, extra: ContextEngineRuntimeContext = {}): ContextEngineRuntimeContext {
    const context: ContextEngineRuntimeContext = {
      agentId: session.agentId,
      sessionKey: session.sessionKey,
      sessionTarget: sessionTargetOf(session),
      config: this.options.config,
      ...extra,
    };
    if (this.options.workspaceDir !== undefined) context.workspaceDir = this.options.workspaceDir;
    if (this.options.agentDir !== undefined) context.agentDir = this.options.agentDir;
    if (this.options.llm !== undefined) context.llm = this.options.llm;
    return context;
  }

  /** Calls the runtime's own compaction directly (threshold compaction), under the watchdog. */
  async runtimeCompact(session: HostSession, request: RuntimeCompactionRequest): Promise<CompactResult> {
    const runtimeCompaction = this.options.runtimeCompaction;
    if (runtimeCompaction === undefined) {
      return { ok: false, compacted: false, reason: "no runtime compaction is configured for this host" };
    }
    return runWithCompactionWatchdog(
      (abortSignal) => runtimeCompaction({ ...request, abortSignal }, session),
      {
        timeoutMs: this.compactionTimeoutMs(),
        signal: request.abortSignal,
      },
    );
  }

  /** The watchdog on every compaction: `agents.defaults.compaction.timeoutSeconds`, default 180 s. */
  compactionTimeoutMs(): number {
    const seconds = this.options.config?.agents?.defaults?.compaction?.timeoutSeconds;
    return typeof seconds === "number" && seconds > 0 ? seconds * 1000 : DEFAULT_COMPACTION_TIMEOUT_MS;
  }

  /** Runs `work` with this host's runtime compaction, bound to `session`, in reach of the engine. */
  withRuntime<T>(session: HostSession, work: () => Promise<T>): Promise<T> {
    const runtimeCompaction = this.options.runtimeCompaction;
    const compactor: RuntimeCompactor = async (request) => {
      if (runtimeCompaction === undefined) {
        return { ok: false, compacted: false, reason: "no runtime compaction is configured for this host" };
      }
      return runtimeCompaction(request, session);
    };
    return runWithRuntimeCompactor(compactor, work);
  }

  /**
   * True the first time it is asked for a session (bootstrap runs once per session per host; see
   * `session-maintenance.ts`), false after, until `reload` or `dispose`.
   */
  claimBootstrap(sessionId: string): boolean {
    if (this.bootstrapped.has(sessionId)) return false;
    this.bootstrapped.add(sessionId);
    return true;
  }

  /** One compaction through the engine under the watchdog; see `compactSession`. */
  compactSession(session: HostSession, request: CompactionRequest): Promise<CompactionOutcome> {
    return compactSession(this, session, request);
  }

  /** `/compact [instructions]`. */
  compactManually(
    session: HostSession,
    options: { customInstructions?: string; model?: HostModel; signal?: AbortSignal } = {},
  ): Promise<CompactionOutcome> {
    return compactManually(this, session, options);
  }

  /** Compaction required before the next run; see `compactPreflight`. */
  compactPreflight(
    session: HostSession,
    options: {
      trigger: "tokens" | "transcript_bytes";
      currentTokenCount?: number;
      model?: HostModel;
      signal?: AbortSignal;
    },
  ): Promise<CompactionOutcome> {
    return compactPreflight(this, session, options);
  }

  /** Runs a child with the engine's subagent hooks around it; see `spawnSubagent`. */
  spawnSubagent<T>(request: SubagentSpawnRequest, runChild: () => Promise<T>): Promise<T> {
    return spawnSubagent(this, request, runChild);
  }

  /** Best-effort `onSubagentEnded`. */
  endSubagent(params: SubagentEndedParams): Promise<void> {
    return endSubagent(this, params);
  }

  /** Tells the engine the user deleted a session (`onSessionDeleted`); never throws. */
  async sessionDeleted(params: SessionDeletedParams): Promise<void> {
    try {
      const { engine } = await this.engine();
      await engine.onSessionDeleted?.(params);
    } catch (error) {
      this.options.logger.warn(`context engine onSessionDeleted failed: ${describeError(error)}`);
    }
  }

  /** Disposes the current engine and resolves the slot again on next use (after config changes). */
  async reload(config?: ContextEngineHostOptions["config"]): Promise<void> {
    const previous = this.resolved;
    this.resolved = undefined;
    if (config !== undefined) this.options.config = config;
    this.bootstrapped.clear();
    await this.maintenance.whenIdle();
    if (previous !== undefined) await disposeResolved(await previous, this.options.logger);
  }

  /** Aborts background maintenance, waits for it, disposes the engine. Idempotent. */
  dispose(): Promise<void> {
    this.disposed ??= (async () => {
      await this.maintenance.close();
      const resolved = this.resolved;
      this.resolved = undefined;
      if (resolved !== undefined) await disposeResolved(await resolved, this.options.logger);
    })();
    return this.disposed;
  }
}

async function disposeResolved(resolved: ResolvedContextEngine, logger: ContextEngineHostOptions["logger"]) {
  try {
    await resolved.engine.dispose?.();
  } catch (error) {
    logger.warn(`context engine dispose failed: ${describeError(error)}`);
  }
}

function lastReplyAt(history: readonly AgentMessage[]): number | undefined {
  for (let index = history.length - 1; index >= 0; index--) {
    const message = history[index];
    if (message !== undefined && isAssistantMessage(message) && message.stopReason !== "error")
      return message.timestamp;
  }
  return undefined;
}
