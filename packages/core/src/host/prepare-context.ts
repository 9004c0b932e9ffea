import type { AssembleResult, ContextEngine } from "../context-engine/types.js";
import { describeError } from "../errors.js";
import { type AgentMessage, isToolResultMessage } from "../messages.js";
import { countMessagesTokens } from "../tokens/estimate.js";
import type { ContextEngineHost, HostModel } from "./context-engine-host.js";
import { PRECHECK_SAFETY_MARGIN } from "./host-options.js";
import type { HostSession } from "./host-session.js";

export interface PrepareContextInput {
  engine: ContextEngine;
  session: HostSession;
  /** Stored history, before this step's pending messages. */
  history: AgentMessage[];
  /** Messages of this turn not yet stored (the user prompt before the first step). */
  pending: AgentMessage[];
  prompt: string;
  systemPrompt: string;
  model: HostModel;
  availableTools?: Set<string>;
  /** Set after overflow compaction gave up: tool results longer than this are cut in the request. */
  toolResultCharCap?: number;
}

export interface PreparedContext {
  /** The engine's messages (or the pipeline's after an assemble failure), without `pending`. */
  messages: AgentMessage[];
  /** The run's system prompt with the engine's addition in front. */
  systemPrompt: string;
  assembled: Pick<
    AssembleResult,
    "estimatedTokens" | "promptAuthority" | "systemPromptAddition" | "contextProjection" | "cacheBoundary"
  >;
  /** False when assemble failed and the pipeline messages were used. */
  assemblySucceeded: boolean;
  /** The budget given to assemble. */
  tokenBudget: number;
  /** Host estimate of the whole prompt, safety margin included. */
  estimatedPromptTokens: number;
  /** Window minus the effective reserve. */
  promptBudgetTokens: number;
  /** Whether the overflow check ran (it is skipped for engines that own compaction). */
  prechecked: boolean;
  /** Set when the check found the prompt too large. */
  overflow?: { estimatedTokens: number; budgetTokens: number };
}

/**
 * Assembles the context for one model call and checks it fits.
 *
 * Budget for assemble: window − effective reserve − (system prompt + pending turn messages), at
 * least 1 (see `ContextEngineHost.effectiveReserveTokens`).
 * An assemble that throws or returns no `messages` array falls back to the pipeline history.
 * The check estimates system prompt + messages + pending with a 1.2 margin against
 * window − effective reserve; under `preassembly_may_overflow` the messages part is the larger of
 * the assembled and pre-assembly estimates. It is skipped when assembly succeeded, the engine owns
 * compaction and did not say `preassembly_may_overflow`.
 */
export async function prepareContext(
  host: ContextEngineHost,
  input: PrepareContextInput,
): Promise<PreparedContext> {
  const { engine, session } = input;
  const counter = host.tokenCounter;
  const window = host.contextWindow(input.model);
  const reserve = host.effectiveReserveTokens(window);
  const pendingTokens = countMessagesTokens(counter, input.pending);
  const tokenBudget = Math.max(1, window - reserve - counter.countText(input.systemPrompt) - pendingTokens);

  let assembled: AssembleResult | undefined;
  try {
    assembled = await host.withRuntime(session, () =>
      engine.assemble({
        sessionId: session.sessionId,
        sessionKey: session.sessionKey,
        messages: input.history,
        tokenBudget,
        model: input.model.id,
        prompt: input.prompt,
        runtimeSettings: host.runtimeSettings(engine, input.model, tokenBudget),
        runtimeContext: host.runtimeContext(session, { tokenBudget }),
        ...(input.availableTools === undefined ? {} : { availableTools: input.availableTools }),
      }),
    );
    if (!isAssembleResult(assembled)) {
      throw new Error(
        `context engine "${engine.info.id}" assemble() returned an invalid result: expected an object with a "messages" array (got ${typeName(assembled)})`,
      );
    }
  } catch (error) {
    host.logger.warn(`context engine assemble failed, using pipeline messages: ${describeError(error)}`);
    assembled = undefined;
  }

  const pruned = host.pruneForRequest(assembled?.messages ?? input.history, input.history, input.model);
  const messages =
    input.toolResultCharCap === undefined ? pruned : capToolResults(pruned, input.toolResultCharCap);
  const addition = assembled?.systemPromptAddition?.trim();
  const systemPrompt = addition ? `${addition}\n\n${input.systemPrompt}` : input.systemPrompt;
  const authority = assembled?.promptAuthority ?? "assembled";
  const promptBudgetTokens = window - reserve;
  let messageTokens = countMessagesTokens(counter, messages);
  if (authority === "preassembly_may_overflow") {
    messageTokens = Math.max(messageTokens, countMessagesTokens(counter, input.history));
  }
  const estimatedPromptTokens = Math.ceil(
    (counter.countText(systemPrompt) + messageTokens + pendingTokens) * PRECHECK_SAFETY_MARGIN,
  );
  const skip =
    assembled !== undefined &&
    engine.info.ownsCompaction === true &&
    authority !== "preassembly_may_overflow";
  if (skip)
    host.logger.debug(
      `[context-overflow-precheck] skipped: context engine "${engine.info.id}" owns compaction`,
    );

  const prepared: PreparedContext = {
    messages,
    systemPrompt,
    assembled: assembled === undefined ? { estimatedTokens: 0 } : pickAssembleFacts(assembled),
    assemblySucceeded: assembled !== undefined,
    tokenBudget,
    estimatedPromptTokens,
    promptBudgetTokens,
    prechecked: !skip,
  };
  if (!skip && estimatedPromptTokens > promptBudgetTokens) {
    prepared.overflow = { estimatedTokens: estimatedPromptTokens, budgetTokens: promptBudgetTokens };
  }
  return prepared;
}

function isAssembleResult(value: unknown): value is AssembleResult {
  return (
    typeof value === "object" && value !== null && Array.isArray((value as { messages?: unknown }).messages)
  );
}

function typeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

function pickAssembleFacts(result: AssembleResult): PreparedContext["assembled"] {
  const facts: PreparedContext["assembled"] = {
    estimatedTokens: typeof result.estimatedTokens === "number" ? result.estimatedTokens : 0,
  };
  if (result.promptAuthority !== undefined) facts.promptAuthority = result.promptAuthority;
  if (result.systemPromptAddition !== undefined) facts.systemPromptAddition = result.systemPromptAddition;
  if (result.contextProjection !== undefined) facts.contextProjection = result.contextProjection;
  const boundary = result.cacheBoundary;
  // Only a position inside the list (pruning and tool-result caps keep every message in place).
  if (Number.isInteger(boundary) && (boundary as number) > 0 && (boundary as number) < result.messages.length)
    facts.cacheBoundary = boundary as number;
  return facts;
}

/**
 * Cuts every tool result longer than `cap` characters to its head and tail with a marker, in the
 * request only (the transcript keeps the whole result). Used once overflow compaction gave up.
 */
export function capToolResults(messages: AgentMessage[], cap: number): AgentMessage[] {
  return messages.map((message) => {
    if (!isToolResultMessage(message)) return message;
    const text = message.content.map((block) => (block.type === "text" ? block.text : "")).join("\n");
    if (text.length <= cap) return message;
    const head = text.slice(0, Math.floor(cap * 0.7));
    const tail = text.slice(text.length - Math.floor(cap * 0.2));
    const omitted = text.length - head.length - tail.length;
    return {
      ...message,
      content: [
        { type: "text" as const, text: `${head}\n[... ${omitted} more characters truncated]\n${tail}` },
      ],
    };
  });
}

/** OpenClaw's cap for oversized tool results: 30 % of the window in chars, at most 40,000. */
export function toolResultCharCap(contextWindow: number): number {
  return Math.max(2_000, Math.min(Math.floor(0.3 * contextWindow) * 4, 40_000));
}
