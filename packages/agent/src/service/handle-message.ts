import {
  type AgentMessage,
  ContextOverflowError,
  DEFAULT_MAX_STEPS,
  describeError,
  emptyUsage,
  isAssistantMessage,
  isClewError,
  type SessionIndexEntry,
  type Usage,
} from "@clew/core";
import { applyDirectives } from "../commands/apply-directives.js";
import { formatHelp } from "../commands/format-help.js";
import { formatUsageFooter } from "../commands/format-usage-footer.js";
import { parseChatInput } from "../commands/parse-chat-input.js";
import type { SessionSettings } from "../commands/settings.js";
import { callModel, isOverflowMessage } from "../providers/call-model.js";
import { chainPayloadHooks } from "../providers/payload-hooks.js";
import { capReplyInPayload, replyTokenCap } from "../providers/reply-cap.js";
import { type ResolvedModel, resolveModel } from "../providers/resolve-model.js";
import type { TurnEvent } from "../runner/events.js";
import { createModelStep } from "../runner/model-step.js";
import { createThreadProjectingCallModel } from "../threads/thread-projection.js";
import type { SendMessageOptions, SendMessageResult } from "./agent-service.js";
import { cliBackendFor, configuredModelRef, runCliBackendMessage } from "./cli-backend-turn.js";
import type { LocalAgentService, OpenSession } from "./local-agent-service.js";
import { maybeFlushMemory } from "./memory-flush-turn.js";
import { prepareRunPrompt, recordRunReport } from "./run-prompt.js";
import { runCommand, statusOf } from "./session-commands.js";
import { toolsForSession } from "./session-tools.js";

/**
 * One message from a user: a command runs and answers; directives are applied (persisted when the
 * message holds nothing else); otherwise the model runs a turn through the context-engine host.
 * Failures end as a `run-error` event and an `ok: false` result, never as a rejection.
 */
export async function handleMessage(
  service: LocalAgentService,
  open: OpenSession,
  text: string,
  options: SendMessageOptions,
): Promise<SendMessageResult> {
  const authorized = options.authorized ?? true;
  const pluginCommand = authorized ? service.options.pluginCommands?.match(text) : undefined;
  if (pluginCommand !== undefined) {
    try {
      const answer = await pluginCommand.command.handler({ sessionKey: open.key, args: pluginCommand.args });
      return { kind: "command", ok: true, text: answer };
    } catch (error) {
      return {
        kind: "command",
        ok: false,
        text: `⚠️ /${pluginCommand.command.name} failed: ${describeError(error)}`,
      };
    }
  }
  const parsed = parseChatInput(text, { authorized });
  if (parsed.kind === "command") return runCommand(service, open, parsed, options);
  const entry = await open.runtime.index.get(open.key);
  const settings = (entry?.settings ?? {}) as SessionSettings;
  const applied = applyDirectives(settings, parsed.directives, { persist: parsed.directiveOnly });
  if (applied.errors.length > 0) return { kind: "command", ok: false, text: applied.errors.join("\n") };
  if (applied.settings !== settings)
    await open.runtime.index.upsert(open.key, { settings: { ...applied.settings } });
  const notes = [...applied.acknowledgements];
  for (const shortcut of parsed.inline) {
    notes.push(shortcut.name === "status" ? (await statusOf(service, open)).text : formatHelp());
  }
  if (parsed.directiveOnly || parsed.text.length === 0)
    return { kind: "command", ok: true, text: notes.join("\n") };
  const reply = await runModelTurn(service, open, parsed.text, applied.messageSettings, options);
  return notes.length === 0 ? reply : { ...reply, text: `${notes.join("\n")}\n\n${reply.text}` };
}

async function runModelTurn(
  service: LocalAgentService,
  open: OpenSession,
  prompt: string,
  settings: SessionSettings,
  options: SendMessageOptions,
): Promise<SendMessageResult> {
  const emit = (event: TurnEvent) => {
    try {
      options.onEvent?.(event);
    } catch {
      // The listener's failure is its own.
    }
  };
  const backend = cliBackendFor(
    service.options.config,
    configuredModelRef(service.options.config, open.runtime.agentId, settings.model),
  );
  if (backend !== undefined) {
    try {
      return await runCliBackendMessage(service, open, backend, prompt, options, emit);
    } catch (error) {
      return failure(emit, error, options.signal?.aborted === true);
    }
  }
  const maxSteps = service.options.config.agents?.defaults?.maxStepsPerTurn ?? DEFAULT_MAX_STEPS;
  let resolved: ResolvedModel;
  try {
    resolved = resolveModel(service.options.config, {
      agentId: open.runtime.agentId,
      purpose: "chat",
      env: service.options.env,
      configPath: service.options.configPath,
      ...(settings.model === undefined ? {} : { sessionModel: settings.model }),
    });
  } catch (error) {
    return failure(emit, error, false);
  }
  emit({ type: "run-start", sessionKey: open.key, sessionId: open.session.sessionId, model: resolved.ref });
  const { runtime } = open;
  const tools = await toolsForSession(service, open);
  const makeStep = (onEvent: ((event: TurnEvent) => void) | undefined) =>
    createModelStep({
      // Providers that keep a server thread (OpenAI Responses) get the context once per epoch when
      // the engine asks for `thread_bootstrap`; every other call is projected in full.
      callModel: createThreadProjectingCallModel({
        state: open.threadState,
        base: (context, callOptions) => {
          open.lastRequestMessages = context.messages;
          const maxTokens = replyTokenCap({
            modelMaxTokens: resolved.model.maxTokens,
            contextWindow: resolved.contextWindow,
            systemPrompt: context.systemPrompt,
            messages: context.messages,
            tools: context.tools,
            counter: runtime.host.tokenCounter,
          });
          const { perRequestMessage, onPayload, ...passed } = callOptions;
          return callModel(resolved, context, {
            ...passed,
            onPayload: chainPayloadHooks(
              onPayload,
              maxTokens === undefined ? undefined : capReplyInPayload(maxTokens),
              open.cacheAnchors.hook(perRequestMessage),
            ),
            ...(maxTokens === undefined ? {} : { maxTokens }),
            sessionId: open.session.sessionId,
            ...(settings.thinkingLevel === undefined || settings.thinkingLevel === "off"
              ? {}
              : { reasoning: settings.thinkingLevel }),
          });
        },
      }),
      isOverflow: (message) => isOverflowMessage(message, resolved.contextWindow),
      tools,
      ...(onEvent === undefined ? {} : { onEvent }),
      now: service.now,
    });
  const model = {
    id: resolved.model.id,
    provider: resolved.model.provider,
    api: resolved.model.api,
    contextWindow: resolved.contextWindow,
  };
  try {
    const prepared = await prepareRunPrompt(service, open, tools, resolved.ref, settings);
    await maybeFlushMemory(service, open, {
      model,
      window: runtime.host.contextWindow(model),
      prepared,
      step: makeStep(undefined),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
    const turn = await runtime.withListener(open.key, emit, () =>
      runtime.host.runTurn({
        session: open.session,
        prompt,
        systemPrompt: prepared.prompt.text,
        model,
        callModel: makeStep(emit),
        isContextOverflow: (error) => error instanceof ContextOverflowError,
        availableTools: tools.names(),
        maxSteps,
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      }),
    );
    const usage = sumUsage(turn.newMessages);
    const entry = await recordTurn(
      open,
      resolved,
      usage,
      turn.newMessages,
      turn.compactions.filter((item) => item.result.compacted).length,
    );
    await recordRunReport(service, open, {
      prepared,
      lastContext: turn.lastContext,
      sent: open.lastRequestMessages ?? [],
      tools,
      provider: resolved.model.provider,
      model: resolved.model.id,
      window: runtime.host.contextWindow({ id: resolved.model.id, contextWindow: resolved.contextWindow }),
      contextTokens: entry.tokens?.context ?? null,
    }).catch((error: unknown) =>
      service.options.logger.warn(`could not record the run report: ${describeError(error)}`),
    );
    const final = [...turn.newMessages].reverse().find(isAssistantMessage);
    if (turn.aborted || final?.stopReason === "aborted")
      return failure(emit, new Error("The run was aborted."), true);
    if (final?.stopReason === "error")
      return failure(emit, new Error(final.errorMessage ?? "The model answered with an error."), false);
    const replyText = turn.stepLimitReached
      ? [textOf(final), stepLimitNotice(maxSteps)].filter((part) => part !== "").join("\n\n")
      : textOf(final);
    emit({ type: "run-end", messages: turn.newMessages, usage, text: replyText });
    const footer = formatUsageFooter(
      {
        input: usage.input,
        output: usage.output,
        cacheRead: usage.cacheRead,
        cacheWrite: usage.cacheWrite,
        cost: usage.cost.total,
      },
      settings.usageMode ?? "off",
      {
        sessionKey: open.key,
        contextWindow: resolved.contextWindow,
        model: resolved.ref,
        ...(entry.tokens?.context === undefined ? {} : { contextUsed: entry.tokens.context }),
      },
    );
    return { kind: "reply", ok: true, text: footer === undefined ? replyText : `${replyText}\n\n${footer}` };
  } catch (error) {
    return failure(emit, error, options.signal?.aborted === true);
  }
}

/** What the user reads when a turn stopped with the model still calling tools. */
export function stepLimitNotice(maxSteps: number): string {
  return (
    `⚠️ Stopped after ${maxSteps} model calls in this turn (agents.defaults.maxStepsPerTurn); ` +
    "the model was still working. Send a message (e.g. “continue”) to go on from here."
  );
}

function failure(emit: (event: TurnEvent) => void, error: unknown, aborted: boolean): SendMessageResult {
  const message = describeError(error);
  const code = isClewError(error) ? error.code : undefined;
  emit({ type: "run-error", message, aborted, ...(code === undefined ? {} : { code }) });
  return {
    kind: "reply",
    ok: false,
    text: message,
    error: { message, aborted, ...(code === undefined ? {} : { code }) },
  };
}

/** Accumulates the run's usage, model and context fill into the sessions index. */
async function recordTurn(
  open: OpenSession,
  resolved: ResolvedModel,
  usage: Usage,
  messages: AgentMessage[],
  compactions: number,
): Promise<SessionIndexEntry> {
  const last = [...messages]
    .reverse()
    .find((message) => isAssistantMessage(message) && message.usage.input > 0);
  const context =
    last !== undefined && isAssistantMessage(last)
      ? last.usage.input + last.usage.cacheRead + last.usage.cacheWrite + last.usage.output
      : undefined;
  return open.runtime.index.upsert(open.key, (current) => {
    const tokens = current?.tokens ?? { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 };
    return {
      ...current,
      sessionId: open.session.sessionId,
      sessionFile: open.session.sessionFile,
      model: { provider: resolved.model.provider, id: resolved.model.id },
      compactionCount: (current?.compactionCount ?? 0) + compactions,
      cost: (current?.cost ?? 0) + usage.cost.total,
      tokens: {
        input: tokens.input + usage.input,
        output: tokens.output + usage.output,
        cacheRead: tokens.cacheRead + usage.cacheRead,
        cacheWrite: tokens.cacheWrite + usage.cacheWrite,
        total: tokens.total + usage.totalTokens,
        ...(context === undefined
          ? tokens.context === undefined
            ? {}
            : { context: tokens.context }
          : { context }),
      },
    };
  });
}

function sumUsage(messages: readonly AgentMessage[]): Usage {
  const total = emptyUsage();
  for (const message of messages) {
    if (!isAssistantMessage(message)) continue;
    const usage = message.usage;
    total.input += usage.input;
    total.output += usage.output;
    total.cacheRead += usage.cacheRead;
    total.cacheWrite += usage.cacheWrite;
    total.totalTokens += usage.totalTokens;
    total.cost.input += usage.cost.input;
    total.cost.output += usage.cost.output;
    total.cost.cacheRead += usage.cost.cacheRead;
    total.cost.cacheWrite += usage.cost.cacheWrite;
    total.cost.total += usage.cost.total;
  }
  return total;
}

function textOf(message: AgentMessage | undefined): string {
  if (message === undefined || !isAssistantMessage(message)) return "";
  return message.content
    .filter((block) => block.type === "text")
    .map((block) => (block.type === "text" ? block.text : ""))
    .join("");
}
