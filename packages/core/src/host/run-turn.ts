import { isAbortForSignal } from "../context-engine/abort.js";
import { assertContextEngineHostSupport } from "../context-engine/host-requirements.js";
import type { ContextEngine, ContextEngineProjection } from "../context-engine/types.js";
import { ContextOverflowError, describeError } from "../errors.js";
import {
  type AgentMessage,
  type AssistantMessage,
  emptyUsage,
  isAssistantMessage,
  type UserMessage,
} from "../messages.js";
import { countMessagesTokens } from "../tokens/estimate.js";
import { type CompactionOutcome, compactOnThreshold } from "./compaction.js";
import type { ContextEngineHost, HostModel } from "./context-engine-host.js";
import { type HostSession, sessionTargetOf } from "./host-session.js";
import { OverflowRecovery } from "./overflow-recovery.js";
import { type PreparedContext, prepareContext } from "./prepare-context.js";
import { bootstrapSession, maintainSession } from "./session-maintenance.js";

/** What one model call receives: exactly what the model sees. */
export interface ModelStepRequest {
  systemPrompt: string;
  messages: AgentMessage[];
  /** 0 for the first call of the turn, then one more per tool-loop iteration. */
  step: number;
  signal?: AbortSignal;
  /** How the engine wants its context projected (server threads reuse it per `epoch`). */
  contextProjection?: ContextEngineProjection;
  /**
   * Index in `messages` where the part that changes with every request starts (the engine's
   * `cacheBoundary`); the messages before it are the prefix a provider's prompt cache can keep.
   */
  cacheBoundary?: number;
}

export interface ModelStepResult {
  /** New messages of this step, in order: the assistant message, then any tool results. */
  messages: AgentMessage[];
  /** False when the step ran tools and the model must be called again. */
  done: boolean;
}

/**
 * One model call (plus the tools it asked for). Throw `ContextOverflowError`, or any error for
 * which `isContextOverflow` answers true, when the provider says the prompt is too long: the host
 * then compacts and retries the step.
 */
export type ModelStepFunction = (request: ModelStepRequest) => Promise<ModelStepResult>;

export interface RunTurnParams {
  session: HostSession;
  prompt: string | UserMessage;
  systemPrompt: string;
  model: HostModel;
  callModel: ModelStepFunction;
  isContextOverflow?: (error: unknown) => boolean;
  availableTools?: Set<string>;
  signal?: AbortSignal;
  isHeartbeat?: boolean;
  /**
   * Model calls in one turn before the runner stops asking (a model that never stops calling
   * tools). Default `DEFAULT_MAX_STEPS`. A turn stopped there says so (`stepLimitReached`).
   */
  maxSteps?: number;
}

export interface TurnResult {
  /** The session the turn ended in: the successor when a compaction rotated it. */
  session: HostSession;
  /** Every message this turn added, the user prompt first. */
  newMessages: AgentMessage[];
  /** The engine that served the final assembly (`legacy` after a fallback). */
  engineId: string;
  /** The context of the last model call. */
  lastContext: PreparedContext;
  compactions: CompactionOutcome[];
  steps: number;
  /** False when afterTurn/ingest failed (the turn still succeeded for the user) or it was aborted. */
  finalized: boolean;
  /** The caller's signal fired during the turn; what completed was stored, the engine was not told. */
  aborted: boolean;
  /**
   * The turn ended at `maxSteps` with the model still calling tools: its last message is a tool
   * result, no reply. The next user message continues from there.
   */
  stepLimitReached: boolean;
}

/** Model calls in one turn when the caller names no limit. */
export const DEFAULT_MAX_STEPS = 200;

/**
 * One turn through the engine: bootstrap (first sight of an existing session), assemble before
 * every model call including those inside the tool loop, the overflow check, compaction and retry
 * on overflow (at most 3 per model call), cutting oversized tool results in the request when
 * compaction cannot make room, then afterTurn (or ingestBatch, or ingest) and maintenance.
 *
 * The transcript gets the user prompt together with the first successful step, and each later
 * step as it completes, so it never holds a half step. A turn that fails or is aborted records the
 * prompt and an assistant message with `stopReason` `error`/`aborted`, keeping roles alternating.
 */
export async function runContextEngineTurn(
  host: ContextEngineHost,
  params: RunTurnParams,
): Promise<TurnResult> {
  const { engine } = await host.engine();
  assertContextEngineHostSupport(engine.info, "agent-run", host.hostDescriptor);
  let session = params.session;
  await bootstrapSession(host, engine, session, params.model);

  const userMessage = toUserMessage(params.prompt, host.now());
  const promptText = typeof params.prompt === "string" ? params.prompt : textOf(params.prompt);
  let history = host.prepareHistory(await session.messages(), params.model);
  let pending: AgentMessage[] = [userMessage];
  const turnMessages: AgentMessage[] = [];
  const compactions: CompactionOutcome[] = [];
  const isOverflow = params.isContextOverflow ?? ((error: unknown) => error instanceof ContextOverflowError);
  let lastContext: PreparedContext | undefined;
  let step = 0;
  // At least one call: a turn that asked nothing would have no context to report.
  const maxSteps = Math.max(1, Math.floor(params.maxSteps ?? DEFAULT_MAX_STEPS));
  let answered = false;

  const compact = async (request: Parameters<ContextEngineHost["compactSession"]>[1]) => {
    const outcome = await host.compactSession(session, request);
    compactions.push(outcome);
    session = outcome.session;
    if (outcome.result.compacted) history = host.prepareHistory(await session.messages(), params.model);
    return outcome;
  };
  const recovery = new OverflowRecovery({
    host,
    model: params.model,
    compact,
    ...signalOf(params.signal),
  });

  try {
    while (step < maxSteps) {
      const prepared = await prepareContext(host, {
        engine,
        session,
        history,
        pending,
        prompt: promptText,
        systemPrompt: params.systemPrompt,
        model: params.model,
        ...(params.availableTools === undefined ? {} : { availableTools: params.availableTools }),
        ...(recovery.toolResultCap === undefined ? {} : { toolResultCharCap: recovery.toolResultCap }),
      });
      lastContext = prepared;
      if (prepared.overflow !== undefined) {
        const answer = await recovery.recover(prepared, pending, "precheck", {
          currentTokenCount: prepared.overflow.estimatedTokens,
          tokenBudget: prepared.overflow.budgetTokens,
        });
        if (answer.retry) continue;
        throw overflowError(prepared, "precheck", answer.compactionReason);
      }
      let result: ModelStepResult;
      try {
        result = await params.callModel({
          systemPrompt: prepared.systemPrompt,
          messages: [...prepared.messages, ...pending],
          step,
          ...signalOf(params.signal),
          ...(prepared.assembled.contextProjection === undefined
            ? {}
            : { contextProjection: prepared.assembled.contextProjection }),
          ...(prepared.assembled.cacheBoundary === undefined
            ? {}
            : { cacheBoundary: prepared.assembled.cacheBoundary }),
        });
      } catch (error) {
        if (!isOverflow(error) || isAbortForSignal(error, params.signal)) throw error;
        const answer = await recovery.recover(prepared, pending, "overflow", {
          tokenBudget: host.contextWindow(params.model),
          ...observedTokens(error),
        });
        if (answer.retry) continue;
        throw overflowError(prepared, "provider", answer.compactionReason, error);
      }
      const stepMessages = [...pending, ...result.messages];
      await session.append(stepMessages);
      turnMessages.push(...stepMessages);
      history = [...history, ...stepMessages];
      pending = [];
      step += 1;
      recovery.stepSucceeded();
      if (result.done) {
        answered = true;
        break;
      }
    }
  } catch (error) {
    await recordFailedTurn(session, pending, error, params.signal, params.model, host);
    await flushQuietly(host, session);
    throw error;
  }
  await flushQuietly(host, session);

  // An aborted turn is stored (so the transcript stays valid) but never advances engine state.
  const aborted = params.signal?.aborted === true;
  const finalized = aborted
    ? false
    : await finalizeTurn(host, engine, session, history, turnMessages, params);
  if (finalized) await maintainSession(host, engine, session, "turn", params.model);
  const threshold = aborted
    ? undefined
    : await compactOnThreshold(host, engine, session, {
        model: params.model,
        contextTokens: contextTokensAfterTurn(host, history, turnMessages),
        ...signalOf(params.signal),
      });
  if (threshold !== undefined) {
    compactions.push(threshold);
    session = threshold.session;
  }
  return {
    session,
    newMessages: turnMessages,
    engineId: engine.info.id,
    lastContext: lastContext as PreparedContext,
    compactions,
    steps: step,
    finalized,
    aborted,
    stepLimitReached: !answered && !aborted,
  };
}

/** afterTurn when the engine has it, else ingestBatch, else ingest per message. Never throws. */
async function finalizeTurn(
  host: ContextEngineHost,
  engine: ContextEngine,
  session: HostSession,
  snapshot: AgentMessage[],
  turnMessages: AgentMessage[],
  params: RunTurnParams,
): Promise<boolean> {
  const isHeartbeat = params.isHeartbeat === true;
  const label = engine.afterTurn !== undefined ? "afterTurn" : "ingest";
  try {
    await host.withRuntime(session, async () => {
      if (engine.afterTurn !== undefined) {
        await engine.afterTurn({
          sessionId: session.sessionId,
          sessionKey: session.sessionKey,
          sessionTarget: sessionTargetOf(session),
          sessionFile: session.sessionFile,
          messages: snapshot,
          prePromptMessageCount: snapshot.length - turnMessages.length,
          isHeartbeat,
          tokenBudget: host.contextBudget(params.model),
          runtimeSettings: host.runtimeSettings(engine, params.model),
          runtimeContext: host.runtimeContext(session),
        });
      } else if (engine.ingestBatch !== undefined) {
        await engine.ingestBatch({
          sessionId: session.sessionId,
          sessionKey: session.sessionKey,
          messages: turnMessages,
          isHeartbeat,
        });
      } else {
        for (const message of turnMessages) {
          await engine.ingest({
            sessionId: session.sessionId,
            sessionKey: session.sessionKey,
            message,
            isHeartbeat,
          });
        }
      }
    });
    return true;
  } catch (error) {
    host.logger.warn(`context engine ${label} failed: ${describeError(error)}`);
    return false;
  }
}

async function recordFailedTurn(
  session: HostSession,
  pending: AgentMessage[],
  error: unknown,
  signal: AbortSignal | undefined,
  model: HostModel,
  host: ContextEngineHost,
): Promise<void> {
  if (pending.length === 0) return;
  const aborted = isAbortForSignal(error, signal);
  const failure: AssistantMessage = {
    role: "assistant",
    content: [],
    api: "unknown",
    provider: model.provider ?? "unknown",
    model: model.id,
    usage: emptyUsage(),
    stopReason: aborted ? "aborted" : "error",
    errorMessage: describeError(error),
    timestamp: host.now(),
  };
  try {
    await session.append([...pending, failure]);
  } catch (appendError) {
    host.logger.error(`could not record the failed turn: ${describeError(appendError)}`);
  }
}

/**
 * How full the context is after the turn: the provider's own count for the last call (prompt plus
 * reply) when it reported one, plus an estimate of anything after that call; else an estimate.
 */
function contextTokensAfterTurn(
  host: ContextEngineHost,
  history: AgentMessage[],
  turnMessages: AgentMessage[],
): number {
  for (let index = turnMessages.length - 1; index >= 0; index--) {
    const message = turnMessages[index];
    if (message === undefined || !isAssistantMessage(message)) continue;
    const usage = message.usage;
    const reported = usage.input + usage.output + usage.cacheRead + usage.cacheWrite;
    if (reported <= 0 || message.stopReason === "error" || message.stopReason === "aborted") break;
    return reported + countMessagesTokens(host.tokenCounter, turnMessages.slice(index + 1));
  }
  return countMessagesTokens(host.tokenCounter, history);
}

async function flushQuietly(host: ContextEngineHost, session: HostSession): Promise<void> {
  try {
    await session.flush?.();
  } catch (error) {
    host.logger.error(
      `could not sync the transcript of session ${session.sessionId}: ${describeError(error)}`,
    );
  }
}

function overflowError(
  prepared: PreparedContext,
  source: "precheck" | "provider",
  compactionReason?: string,
  cause?: unknown,
): ContextOverflowError {
  const why = compactionReason === undefined ? "" : ` Compaction did not help: ${compactionReason}.`;
  return new ContextOverflowError(
    `Context overflow: prompt too large for the model (${source}).${why} Try /compact, or /new to start a fresh session, or use a larger-context model.`,
    {
      estimatedTokens: prepared.overflow?.estimatedTokens ?? prepared.estimatedPromptTokens,
      budgetTokens: prepared.overflow?.budgetTokens ?? prepared.promptBudgetTokens,
      cause,
    },
  );
}

function observedTokens(error: unknown): { currentTokenCount?: number } {
  const value = (error as { estimatedTokens?: unknown } | undefined)?.estimatedTokens;
  return typeof value === "number" && Number.isFinite(value) && value > 0
    ? { currentTokenCount: Math.floor(value) }
    : {};
}

function signalOf(signal: AbortSignal | undefined): { signal?: AbortSignal } {
  return signal === undefined ? {} : { signal };
}

function toUserMessage(prompt: string | UserMessage, timestamp: number): UserMessage {
  return typeof prompt === "string" ? { role: "user", content: prompt, timestamp } : prompt;
}

function textOf(message: UserMessage): string {
  if (typeof message.content === "string") return message.content;
  return message.content
    .filter((block) => block.type === "text")
    .map((block) => (block.type === "text" ? block.text : ""))
    .join("\n");
}
