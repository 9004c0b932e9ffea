import type { CompactionSummaryMessage } from "../compaction/session-context.js";
import type { TranscriptRewriteRequest, TranscriptRewriteResult } from "../context-engine/types.js";
import type { AgentMessage } from "../messages.js";
import type { HostSession, SessionSuccessor } from "./host-session.js";

interface Entry {
  id: string;
  message: AgentMessage;
}

/**
 * A complete `HostSession` kept in memory: for embedding Clew without a disk, and for tests.
 * Sessions of one store share a map so a compaction successor can be adopted by id.
 */
export class InMemorySessionStore {
  private readonly sessions = new Map<string, InMemorySession>();
  private nextEntry = 0;

  open(options: {
    agentId?: string;
    sessionId: string;
    sessionKey?: string;
    messages?: AgentMessage[];
  }): InMemorySession {
    const existing = this.sessions.get(options.sessionId);
    if (existing !== undefined) return existing;
    const agentId = options.agentId ?? "main";
    const session = new InMemorySession(this, {
      agentId,
      sessionId: options.sessionId,
      sessionKey: options.sessionKey ?? `agent:${agentId}:${options.sessionId}`,
      existedBefore: (options.messages?.length ?? 0) > 0,
    });
    this.sessions.set(options.sessionId, session);
    if (options.messages !== undefined) session.seed(options.messages);
    return session;
  }

  get(sessionId: string): InMemorySession | undefined {
    return this.sessions.get(sessionId);
  }

  /** @internal */
  newEntryId(): string {
    this.nextEntry += 1;
    return `e${this.nextEntry.toString(36).padStart(6, "0")}`;
  }
}

export class InMemorySession implements HostSession {
  readonly agentId: string;
  readonly sessionId: string;
  readonly sessionKey: string;
  readonly sessionFile: string;
  readonly storePath = "memory:";
  readonly existedBefore: boolean;
  private entries: Entry[] = [];
  private compaction: { summary: string; firstKeptEntryId: string | undefined } | undefined;

  constructor(
    private readonly store: InMemorySessionStore,
    identity: { agentId: string; sessionId: string; sessionKey: string; existedBefore: boolean },
  ) {
    this.agentId = identity.agentId;
    this.sessionId = identity.sessionId;
    this.sessionKey = identity.sessionKey;
    this.sessionFile = `memory:${identity.sessionId}`;
    this.existedBefore = identity.existedBefore;
  }

  /** Entry ids with their messages, oldest first. */
  get storedEntries(): readonly Entry[] {
    return this.entries;
  }

  /** @internal */
  seed(messages: readonly AgentMessage[]): void {
    for (const message of messages) this.entries.push({ id: this.store.newEntryId(), message });
  }

  /** The active view: the latest compaction summary, then the entries it kept and everything after. */
  async messages(): Promise<AgentMessage[]> {
    if (this.compaction === undefined) return this.entries.map((entry) => entry.message);
    const { summary, firstKeptEntryId } = this.compaction;
    const start =
      firstKeptEntryId === undefined
        ? this.entries.length
        : this.entries.findIndex((e) => e.id === firstKeptEntryId);
    const summaryMessage: CompactionSummaryMessage = {
      role: "compactionSummary",
      summary,
      tokensBefore: 0,
      timestamp: 0,
    };
    return [
      summaryMessage as unknown as AgentMessage,
      ...this.entries.slice(Math.max(0, start)).map((entry) => entry.message),
    ];
  }

  /**
   * Records a compaction: the view becomes the summary plus the entries from `firstKeptEntryId`
   * on (none when undefined). Stored entries are all kept, as in a real transcript.
   */
  applyCompaction(compaction: { summary: string; firstKeptEntryId: string | undefined }): void {
    if (
      compaction.firstKeptEntryId !== undefined &&
      !this.entries.some((e) => e.id === compaction.firstKeptEntryId)
    ) {
      throw new Error(`unknown entry id ${compaction.firstKeptEntryId}`);
    }
    this.compaction = { ...compaction };
  }

  /** Entries the active view shows raw (after the latest compaction cut). */
  get activeEntries(): readonly Entry[] {
    if (this.compaction === undefined) return this.entries;
    const id = this.compaction.firstKeptEntryId;
    const start = id === undefined ? this.entries.length : this.entries.findIndex((entry) => entry.id === id);
    return this.entries.slice(start);
  }

  async append(messages: readonly AgentMessage[]): Promise<void> {
    this.seed(messages);
  }

  async rewriteTranscriptEntries(request: TranscriptRewriteRequest): Promise<TranscriptRewriteResult> {
    const byId = new Map(
      request.replacements.map((replacement) => [replacement.entryId, replacement.message]),
    );
    const unknown = [...byId.keys()].filter((id) => !this.entries.some((entry) => entry.id === id));
    if (unknown.length > 0) {
      return {
        changed: false,
        bytesFreed: 0,
        rewrittenEntries: 0,
        reason: `unknown entry ids: ${unknown.join(", ")}`,
      };
    }
    let bytesFreed = 0;
    this.entries = this.entries.map((entry) => {
      const replacement = byId.get(entry.id);
      if (replacement === undefined) return entry;
      bytesFreed += JSON.stringify(entry.message).length - JSON.stringify(replacement).length;
      return { id: entry.id, message: replacement };
    });
    return { changed: byId.size > 0, bytesFreed: Math.max(0, bytesFreed), rewrittenEntries: byId.size };
  }

  async adoptSuccessor(successor: SessionSuccessor): Promise<HostSession> {
    const id = successor.sessionTarget?.sessionId ?? successor.sessionId;
    if (id === undefined || id === this.sessionId) return this;
    return this.store.open({ agentId: this.agentId, sessionId: id, sessionKey: this.sessionKey });
  }
}
