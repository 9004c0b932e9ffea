import { randomUUID } from "node:crypto";
import {
  type AgentMessage,
  agentIdOfSessionKey,
  type ClewConfig,
  type ContextEngineRegistry,
  createContextEngineRegistry,
  JsonlTranscriptStore,
  type Logger,
  type SessionIndexEntry,
  type TokenCounter,
  TranscriptHostSession,
  UnknownSessionError,
} from "@clew/core";
import type { PluginCommandRegistry } from "../commands/plugin-commands.js";
import { AnthropicCacheAnchors } from "../providers/anthropic-cache.js";
import { createThreadState, type ThreadState } from "../threads/thread-state.js";
import type { ToolRegistry } from "../tools/tool.js";
import { AgentRuntime } from "./agent-runtime.js";
import type {
  AgentService,
  SendMessageOptions,
  SendMessageResult,
  SessionDetail,
  SessionSummary,
} from "./agent-service.js";
import { contextCommand } from "./context-command.js";
import { handleMessage } from "./handle-message.js";
import { statusOf, windowOf } from "./session-commands.js";

export interface LocalAgentServiceOptions {
  home: string;
  config: ClewConfig;
  /** The config file, named in error messages. */
  configPath: string;
  env: Readonly<Record<string, string | undefined>>;
  logger: Logger;
  counter: TokenCounter;
  registry?: ContextEngineRegistry;
  extraTools?: ToolRegistry;
  /** Chat commands plugins registered. */
  pluginCommands?: PluginCommandRegistry;
  /** Where the agent's tools work; default `<home>/agents/<agentId>/workspace`. */
  workspaceDir?: string;
  defaultAgentId?: string;
  now?: () => number;
}

/** A session this process holds open for writing, with its run queue. */
export interface OpenSession {
  key: string;
  runtime: AgentRuntime;
  session: TranscriptHostSession;
  /** Runs of one session never overlap: each waits for the previous one. */
  queue: Promise<unknown>;
  controllers: Set<AbortController>;
  /** What the model was sent on the latest call of the current run; a fork starts from it. */
  lastRequestMessages?: AgentMessage[];
  /** The provider-side thread this session continues, for APIs that keep one. */
  threadState: ThreadState;
  /** Where this session's previous request's cacheable prefix ended (Anthropic's breakpoints). */
  cacheAnchors: AnthropicCacheAnchors;
}

/**
 * The agent, run in this process: sessions on disk, one context-engine host per agent, model
 * calls through the configured provider. The gateway and `clew chat` both drive it.
 */
export class LocalAgentService implements AgentService {
  readonly store: JsonlTranscriptStore;
  readonly options: LocalAgentServiceOptions;
  private readonly registry: ContextEngineRegistry;
  private readonly runtimes = new Map<string, AgentRuntime>();
  private readonly open = new Map<string, OpenSession>();
  private closing: Promise<void> | undefined;

  constructor(options: LocalAgentServiceOptions) {
    this.options = options;
    this.registry = options.registry ?? createContextEngineRegistry();
    const fsync = (options.config.session as { fsync?: "always" | "turn" | "never" } | undefined)?.fsync;
    this.store = new JsonlTranscriptStore({
      home: options.home,
      ...(fsync === undefined ? {} : { fsync }),
      now: this.now,
    });
  }

  readonly now = (): number => (this.options.now ?? Date.now)();

  get defaultAgentId(): string {
    return this.options.defaultAgentId ?? "main";
  }

  runtime(agentId: string): AgentRuntime {
    let runtime = this.runtimes.get(agentId);
    if (runtime === undefined) {
      runtime = new AgentRuntime({
        agentId,
        home: this.options.home,
        config: this.options.config,
        configPath: this.options.configPath,
        env: this.options.env,
        logger: this.options.logger,
        registry: this.registry,
        counter: this.options.counter,
        now: this.now,
        ...(this.options.extraTools === undefined ? {} : { extraTools: this.options.extraTools }),
        ...(this.options.workspaceDir === undefined ? {} : { workspaceDir: this.options.workspaceDir }),
      });
      this.runtimes.set(agentId, runtime);
    }
    return runtime;
  }

  async listSessions(options: { agentId?: string } = {}): Promise<SessionSummary[]> {
    const agentId = options.agentId ?? this.defaultAgentId;
    const entries = await this.runtime(agentId).index.list();
    return entries
      .map((entry) => summaryOf(agentId, entry))
      .sort((left, right) => right.updatedAt - left.updatedAt);
  }

  async createSession(options: { agentId?: string; sessionKey?: string } = {}): Promise<SessionSummary> {
    const agentId = options.sessionKey
      ? (agentIdOfSessionKey(options.sessionKey) ?? this.defaultAgentId)
      : (options.agentId ?? this.defaultAgentId);
    const key = options.sessionKey ?? `agent:${agentId}:${randomUUID().slice(0, 8)}`;
    const runtime = this.runtime(agentId);
    const existing = await runtime.index.get(key);
    if (existing !== undefined) return summaryOf(agentId, existing);
    const sessionId = randomUUID();
    const transcript = await this.store.create({ agentId, sessionId, cwd: runtime.workspaceDir });
    await transcript.close();
    const entry = await runtime.index.upsert(key, {
      sessionId,
      sessionFile: transcript.location,
      compactionCount: 0,
    });
    return summaryOf(agentId, entry);
  }

  async getSession(reference: string): Promise<SessionDetail> {
    const { key, agentId, entry } = await this.lookup(reference);
    const open = this.open.get(key);
    const transcript = open?.session.transcript ?? (await this.store.openReadOnly(agentId, entry.sessionId));
    const messages = transcript
      .branch()
      .filter((item) => item.type === "message")
      .map((item) => item.message);
    return { ...summaryOf(agentId, entry), messages };
  }

  /**
   * Deletes the session and the subagent sessions it spawned (`<key>:sub:…`, at any depth: a forked
   * child holds a copy of its parent's history). Transcripts are archived, not erased. The parent's
   * run is stopped before its children are listed, and they are deleted before it, so a deletion
   * that fails half-way can be asked for again.
   */
  async deleteSession(reference: string): Promise<void> {
    const { key, agentId, entry } = await this.lookup(reference);
    await this.closeSession(key);
    const children = (await this.runtime(agentId).index.list())
      .filter((candidate) => candidate.sessionKey.startsWith(`${key}:sub:`))
      // The deepest first: a child's own children before it.
      .sort((left, right) => right.sessionKey.length - left.sessionKey.length);
    for (const child of [...children, entry]) await this.deleteOne(agentId, child);
  }

  private async deleteOne(agentId: string, entry: SessionIndexEntry): Promise<void> {
    const key = entry.sessionKey;
    await this.closeSession(key);
    // First, so no failure below leaves the engine's copy reachable: a new session under the same
    // key would reach it (recall across a conversation's earlier sessions).
    await this.runtime(agentId).host.sessionDeleted({ sessionId: entry.sessionId, sessionKey: key });
    if (await this.store.exists(agentId, entry.sessionId))
      await this.store.archive(agentId, entry.sessionId, "deleted");
    await this.runtime(agentId).index.remove(key);
  }

  async sendMessage(
    reference: string,
    text: string,
    options: SendMessageOptions = {},
  ): Promise<SendMessageResult> {
    if (this.closing !== undefined)
      return { kind: "command", ok: false, text: "The agent is shutting down." };
    const { key } = await this.lookup(reference);
    const open = await this.openSession(key);
    const controller = new AbortController();
    const forward = () => controller.abort(options.signal?.reason);
    if (options.signal?.aborted) forward();
    else options.signal?.addEventListener("abort", forward, { once: true });
    open.controllers.add(controller);
    const run = open.queue.then(() =>
      handleMessage(this, open, text, { ...options, signal: controller.signal }),
    );
    open.queue = run.catch(() => {});
    try {
      return await run;
    } finally {
      open.controllers.delete(controller);
      options.signal?.removeEventListener("abort", forward);
    }
  }

  async status(reference?: string): Promise<{ text: string; data: unknown }> {
    if (reference === undefined) {
      const sessions = await this.listSessions();
      const engine = await this.runtime(this.defaultAgentId).host.status();
      return {
        text: `🧶 Clew · ${sessions.length} sessions · engine ${engine.effectiveId}`,
        data: { sessions, engine },
      };
    }
    const { key } = await this.lookup(reference);
    return statusOf(this, await this.openSession(key));
  }

  /** `/context <mode>` for a session, with file options for the map (`clew context map --out`). */
  async context(
    reference: string,
    mode: "list" | "detail" | "json" | "map" | "help",
    options: { format?: "png" | "svg"; outDir?: string } = {},
  ): Promise<string> {
    const { key } = await this.lookup(reference);
    const open = await this.openSession(key);
    const settings = ((await open.runtime.index.get(key))?.settings ?? {}) as { model?: string };
    return contextCommand(this, open, mode, { ...options, window: windowOf(this, open, settings) });
  }

  /** Finds a session by key or id; rejects with `UnknownSessionError`. */
  async lookup(reference: string): Promise<{ key: string; agentId: string; entry: SessionIndexEntry }> {
    const keyAgent = agentIdOfSessionKey(reference);
    if (keyAgent !== undefined) {
      const entry = await this.runtime(keyAgent).index.get(reference);
      if (entry !== undefined) return { key: reference, agentId: keyAgent, entry };
      throw new UnknownSessionError(keyAgent, reference);
    }
    const agentId = this.defaultAgentId;
    const entry = (await this.runtime(agentId).index.list()).find(
      (candidate) => candidate.sessionId === reference,
    );
    if (entry === undefined) throw new UnknownSessionError(agentId, reference);
    return { key: entry.sessionKey, agentId, entry };
  }

  /** The open session of `key`, opening (and locking) its transcript on first use. */
  async openSession(key: string): Promise<OpenSession> {
    const existing = this.open.get(key);
    if (existing !== undefined) return existing;
    const { agentId, entry } = await this.lookup(key);
    const runtime = this.runtime(agentId);
    const session = await TranscriptHostSession.openOrCreate(this.store, {
      agentId,
      sessionId: entry.sessionId,
      sessionKey: key,
      cwd: runtime.workspaceDir,
    });
    const opened: OpenSession = {
      key,
      runtime,
      session,
      queue: Promise.resolve(),
      controllers: new Set(),
      threadState: createThreadState(),
      cacheAnchors: new AnthropicCacheAnchors(),
    };
    this.open.set(key, opened);
    return opened;
  }

  /**
   * Releases a session's transcript lock (after `/new`, `/reset` or delete). From inside one of
   * the session's own runs (`fromOwnRun`), it must not wait for the run queue it is part of.
   */
  async closeSession(key: string, options: { fromOwnRun?: boolean } = {}): Promise<void> {
    const open = this.open.get(key);
    if (open === undefined) return;
    this.open.delete(key);
    if (!options.fromOwnRun) {
      for (const controller of open.controllers) controller.abort(new Error("session closed"));
      await open.queue;
    }
    await open.session.close();
  }

  /**
   * Takes a new config (and plugin registrations already reloaded into the registry): waits for
   * runs in progress, closes open sessions, disposes every agent's engine, and builds them again
   * on next use, so install, uninstall and slot changes apply without a restart. Stored sessions
   * are untouched; the new engine takes over from the next run.
   */
  async reload(config: ClewConfig): Promise<void> {
    for (const key of [...this.open.keys()]) {
      const open = this.open.get(key);
      if (open !== undefined) await open.queue;
      await this.closeSession(key);
    }
    const runtimes = [...this.runtimes.values()];
    this.runtimes.clear();
    await Promise.all(runtimes.map((runtime) => runtime.host.dispose()));
    this.options.config = config;
  }

  /** Aborts runs in progress, waits for them, closes transcripts and disposes the engines. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      for (const key of [...this.open.keys()]) await this.closeSession(key);
      await Promise.all([...this.runtimes.values()].map((runtime) => runtime.host.dispose()));
    })();
    return this.closing;
  }
}

function summaryOf(agentId: string, entry: SessionIndexEntry): SessionSummary {
  const summary: SessionSummary = {
    sessionKey: entry.sessionKey,
    sessionId: entry.sessionId,
    agentId,
    updatedAt: entry.updatedAt,
    compactionCount: entry.compactionCount,
  };
  if (entry.model?.id !== undefined) summary.model = `${entry.model.provider ?? ""}/${entry.model.id}`;
  if (entry.tokens?.context !== undefined) summary.contextTokens = entry.tokens.context;
  return summary;
}
