import { mkdirSync } from "node:fs";
import { join } from "node:path";
import {
  agentDir,
  type ClewConfig,
  ContextEngineHost,
  type ContextEngineRegistry,
  type ContextEngineRuntimeContext,
  createModelSummarizer,
  createRuntimeCompaction,
  isPluginEnabled,
  type Logger,
  SessionIndex,
  type TokenCounter,
} from "@clew/core";
import { buildMemoryPromptSection, createMemoryTools, MEMORY_CORE_PLUGIN_ID } from "@clew/memory-core";
import { registerMemoryPromptSection } from "@clew/plugin-sdk";
import type { Message } from "@mariozechner/pi-ai";
import { callModel, replyText } from "../providers/call-model.js";
import { type ResolvedModel, resolveModel } from "../providers/resolve-model.js";
import { createSummaryComplete, pricedCost } from "../providers/summary-complete.js";
import type { TurnEventListener } from "../runner/events.js";
import { threadHostDescriptor } from "../threads/thread-host-descriptor.js";
import { registerBuiltinTools } from "../tools/builtin-tools.js";
import { ToolRegistry } from "../tools/tool.js";
import { SessionToolFactories } from "./session-tools.js";

export interface AgentRuntimeOptions {
  agentId: string;
  home: string;
  config: ClewConfig;
  configPath: string;
  env: Readonly<Record<string, string | undefined>>;
  logger: Logger;
  registry: ContextEngineRegistry;
  counter: TokenCounter;
  /** Tools plugins and engines registered; the built-ins are added to them. */
  extraTools?: ToolRegistry;
  workspaceDir?: string;
  now: () => number;
}

/**
 * One agent's long-lived parts: its context-engine host (engine resolved once, runtime summary
 * compaction with the summary model when one resolves), its tools and its sessions index.
 * Compaction events of every run are routed to the listener of the session they belong to.
 */
export class AgentRuntime {
  readonly agentId: string;
  readonly host: ContextEngineHost;
  readonly tools: ToolRegistry;
  /** Plugin tool factories, called per run for the session (`toolsForSession`). */
  readonly toolFactories: SessionToolFactories;
  readonly index: SessionIndex;
  readonly workspaceDir: string;
  private readonly listeners = new Map<string, TurnEventListener>();
  private readonly logger: Logger;

  constructor(options: AgentRuntimeOptions) {
    this.agentId = options.agentId;
    this.logger = options.logger;
    this.workspaceDir = options.workspaceDir ?? join(agentDir(options.home, options.agentId), "workspace");
    mkdirSync(this.workspaceDir, { recursive: true });
    this.tools = new ToolRegistry();
    for (const tool of options.extraTools?.list() ?? []) this.tools.register(tool, "plugin");
    this.toolFactories = new SessionToolFactories(options.extraTools?.factories() ?? [], options.logger);
    registerBuiltinTools(this.tools, { workspaceDir: this.workspaceDir });
    if (memoryCoreActive(options.config)) {
      // The default memory plugin: notes in the agent's own workspace, its tools and prompt lines.
      for (const tool of createMemoryTools({ workspaceDir: this.workspaceDir }))
        this.tools.register(tool, MEMORY_OWNER);
      registerMemoryPromptSection(buildMemoryPromptSection, { owner: MEMORY_OWNER });
    }
    this.index = new SessionIndex({ home: options.home, agentId: options.agentId, now: options.now });
    const chat = resolvedModel(options, "chat");
    // Summaries (the runtime's compaction, and engines through the host's model call) use the
    // summary model, else the chat model, also when a configured summary model does not resolve.
    const summary = resolvedModel(options, "summary") ?? chat;
    const modelSummarizer =
      summary === undefined
        ? undefined
        : createModelSummarizer({ id: `model:${summary.ref}`, complete: createSummaryComplete(summary) });
    const llm = summary === undefined ? undefined : hostModelCall(summary);
    this.host = new ContextEngineHost({
      // Engines that require thread projection may run when the agent's model keeps server threads;
      // engines that need a model call get the agent's model (runtime-llm-complete).
      hostDescriptor: threadHostDescriptor({
        api: chat?.model.api ?? "none",
        llmComplete: llm !== undefined,
      }),
      ...(llm === undefined ? {} : { llm }),
      registry: options.registry,
      config: options.config,
      logger: options.logger,
      agentDir: agentDir(options.home, options.agentId),
      workspaceDir: this.workspaceDir,
      tokenCounter: options.counter,
      now: options.now,
      runtimeCompaction: createRuntimeCompaction({
        counter: options.counter,
        logger: options.logger,
        now: options.now,
        ...(modelSummarizer === undefined ? {} : { modelSummarizer }),
        ...compactionSettings(options.config),
      }),
      hooks: {
        beforeCompaction: (event) =>
          this.listeners.get(event.sessionKey)?.({ type: "compaction-start", trigger: event.trigger }),
        afterCompaction: (event) => {
          // The host's own compactions are counted with the turn (`recordTurn`); an engine's, in
          // background maintenance after the reply, here, so /status and the memory flush's
          // compaction cycle see them.
          if (event.trigger === "maintain") this.countCompaction(event.sessionKey);
          this.listeners.get(event.sessionKey)?.({
            type: "compaction-end",
            trigger: event.trigger,
            compacted: event.result.compacted,
            ...(event.result.result?.tokensBefore === undefined
              ? {}
              : { tokensBefore: event.result.result.tokensBefore }),
            ...(event.result.result?.tokensAfter === undefined
              ? {}
              : { tokensAfter: event.result.result.tokensAfter }),
          });
        },
      },
    });
  }

  /** One more compaction in the session's index entry; a failed write is logged. */
  private countCompaction(sessionKey: string): void {
    const counted = async () => {
      if ((await this.index.get(sessionKey)) === undefined) return;
      await this.index.upsert(sessionKey, (current) => ({
        ...current,
        compactionCount: (current?.compactionCount ?? 0) + 1,
      }));
    };
    counted().catch((error: unknown) =>
      this.logger.warn("counting a compaction in the sessions index failed", {
        sessionKey,
        error: error instanceof Error ? error.message : String(error),
      }),
    );
  }

  /** Routes this session's compaction events to `listener` while `work` runs. */
  async withListener<T>(
    sessionKey: string,
    listener: TurnEventListener | undefined,
    work: () => Promise<T>,
  ): Promise<T> {
    if (listener === undefined) return work();
    this.listeners.set(sessionKey, listener);
    try {
      return await work();
    } finally {
      this.listeners.delete(sessionKey);
    }
  }
}

const MEMORY_OWNER = `plugin:${MEMORY_CORE_PLUGIN_ID}`;

/** memory-core runs unless another memory plugin holds the slot, or it is disabled. */
export function memoryCoreActive(config: ClewConfig): boolean {
  const slot = config.plugins?.slots?.memory;
  if (slot !== undefined && slot !== MEMORY_CORE_PLUGIN_ID) return false;
  return isPluginEnabled(config, MEMORY_CORE_PLUGIN_ID);
}

/**
 * The agent's model for `purpose`, when one resolves: the chat model, or the summary model
 * (`agents.defaults.compaction.model`, else the chat model). Without one, compaction summarizes
 * extractively and engines get no model call.
 */
function resolvedModel(options: AgentRuntimeOptions, purpose: "chat" | "summary"): ResolvedModel | undefined {
  try {
    return resolveModel(options.config, {
      agentId: options.agentId,
      purpose,
      env: options.env,
      configPath: options.configPath,
    });
  } catch (error) {
    if (purpose === "summary" && options.config.agents?.defaults?.compaction?.model !== undefined) {
      options.logger.warn("agents.defaults.compaction.model does not resolve; summaries use the chat model", {
        error: error instanceof Error ? error.message : String(error),
      });
    }
    return undefined;
  }
}

/** `runtimeContext.llm` for engines: one call of the agent's model, no tools; errors throw. */
function hostModelCall(resolved: ResolvedModel): NonNullable<ContextEngineRuntimeContext["llm"]> {
  return {
    ref: resolved.ref,
    async complete(params) {
      const message = await callModel(
        resolved,
        { systemPrompt: params.systemPrompt ?? "", messages: params.messages as Message[], tools: [] },
        {
          ...(params.abortSignal === undefined ? {} : { signal: params.abortSignal }),
          ...(params.maxTokens === undefined ? {} : { maxTokens: params.maxTokens }),
        },
      );
      const text = replyText(message, resolved, params.abortSignal);
      const usage = message.usage;
      const costUsd = pricedCost(usage, resolved);
      return {
        text,
        usage: {
          input: usage.input,
          output: usage.output,
          cacheRead: usage.cacheRead,
          cacheWrite: usage.cacheWrite,
          total: usage.totalTokens,
          ...(costUsd === undefined ? {} : { costUsd }),
        },
      };
    },
  };
}

function compactionSettings(config: ClewConfig): { keepRecentTokens?: number; reserveTokens?: number } {
  const compaction = config.agents?.defaults?.compaction;
  const settings: { keepRecentTokens?: number; reserveTokens?: number } = {};
  if (compaction?.keepRecentTokens !== undefined) settings.keepRecentTokens = compaction.keepRecentTokens;
  if (compaction?.reserveTokens !== undefined) settings.reserveTokens = compaction.reserveTokens;
  return settings;
}
