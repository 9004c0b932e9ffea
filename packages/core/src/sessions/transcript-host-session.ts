import { buildSessionContext, pushEntry, type SessionContext } from "../compaction/session-context.js";
import type { TranscriptRewriteRequest, TranscriptRewriteResult } from "../context-engine/types.js";
import type { HostSession, SessionSuccessor } from "../host/host-session.js";
import type { AgentMessage } from "../messages.js";
import type { Transcript, TranscriptStore } from "../transcript/transcript-store.js";

/**
 * A `HostSession` over a stored transcript. The rebuilt context is cached and kept current by
 * this session's own appends, so a turn costs what it adds, not what the history holds; anything
 * else that moves the transcript (a compaction entry, a rewrite) triggers one rebuild.
 */
export class TranscriptHostSession implements HostSession {
  readonly agentId: string;
  readonly sessionKey: string;
  readonly existedBefore: boolean;
  private context: SessionContext | undefined;
  private contextLeafId: string | null = null;

  constructor(
    readonly transcript: Transcript,
    private readonly store: TranscriptStore,
    options: { sessionKey: string; existedBefore: boolean },
  ) {
    this.agentId = transcript.agentId;
    this.sessionKey = options.sessionKey;
    this.existedBefore = options.existedBefore;
  }

  /** Opens the session's transcript for writing, creating it when it does not exist yet. */
  static async openOrCreate(
    store: TranscriptStore,
    options: { agentId: string; sessionId: string; sessionKey?: string; cwd?: string },
  ): Promise<TranscriptHostSession> {
    const sessionKey = options.sessionKey ?? `agent:${options.agentId}:${options.sessionId}`;
    if (await store.exists(options.agentId, options.sessionId)) {
      const transcript = await store.open(options.agentId, options.sessionId);
      return new TranscriptHostSession(transcript, store, { sessionKey, existedBefore: true });
    }
    const create: Parameters<TranscriptStore["create"]>[0] = {
      agentId: options.agentId,
      sessionId: options.sessionId,
    };
    if (options.cwd !== undefined) create.cwd = options.cwd;
    return new TranscriptHostSession(await store.create(create), store, { sessionKey, existedBefore: false });
  }

  get sessionId(): string {
    return this.transcript.sessionId;
  }

  get sessionFile(): string {
    return this.transcript.location;
  }

  get storePath(): string {
    return this.store.kind;
  }

  async messages(): Promise<AgentMessage[]> {
    return [...this.currentContext().messages];
  }

  /** Entry id behind each message of `messages()`, same order. */
  entryIds(): string[] {
    return [...this.currentContext().entryIds];
  }

  async append(messages: readonly AgentMessage[]): Promise<void> {
    const context = this.currentContext();
    const entries = await this.transcript.append(
      messages.map((message) => ({ type: "message" as const, message })),
    );
    for (const entry of entries) pushEntry(context, entry);
    this.contextLeafId = this.transcript.leafId;
  }

  async rewriteTranscriptEntries(request: TranscriptRewriteRequest): Promise<TranscriptRewriteResult> {
    const result = await this.transcript.rewriteTranscriptEntries(request);
    this.context = undefined;
    return result;
  }

  flush(): Promise<void> {
    return this.transcript.flush();
  }

  close(): Promise<void> {
    return this.transcript.close();
  }

  async adoptSuccessor(successor: SessionSuccessor): Promise<HostSession> {
    const sessionId = successor.sessionTarget?.sessionId ?? successor.sessionId;
    if (sessionId === undefined || sessionId === this.sessionId) return this;
    const next = await TranscriptHostSession.openOrCreate(this.store, {
      agentId: this.agentId,
      sessionId,
      sessionKey: successor.sessionTarget?.sessionKey ?? this.sessionKey,
    });
    await this.close();
    return next;
  }

  private currentContext(): SessionContext {
    if (this.context === undefined || this.contextLeafId !== this.transcript.leafId) {
      this.context = buildSessionContext(this.transcript.branch());
      this.contextLeafId = this.transcript.leafId;
    }
    return this.context;
  }
}
