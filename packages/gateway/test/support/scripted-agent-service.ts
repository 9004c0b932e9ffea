/**
 * A stand-in for the agent behind the gateway: sessions in memory, and a scripted reply that
 * streams `text-delta` events with small delays and stops when its AbortSignal fires. It records
 * every reference it was asked about, so tests can prove a refused request never reached it.
 */
import { setTimeout as delay } from "node:timers/promises";
import type {
  AgentService,
  SendMessageOptions,
  SendMessageResult,
  SessionDetail,
  SessionSummary,
  TurnEvent,
} from "@clew/agent";
import { UnknownSessionError, type Usage } from "@clew/core";

export interface StartedRun {
  reference: string;
  text: string;
  signal: AbortSignal | undefined;
}

const ZERO_USAGE: Usage = {
  input: 0,
  output: 0,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 0,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
};

export class ScriptedAgentService implements AgentService {
  readonly sessions = new Map<string, SessionSummary>();
  /** Every reference any method received, in order. */
  readonly referencesSeen: string[] = [];
  readonly startedRuns: StartedRun[] = [];
  abortedRuns = 0;
  finishedRuns = 0;
  closeCalls = 0;
  private readonly runStartWaiters: Array<(run: StartedRun) => void> = [];

  constructor(
    private readonly script: { deltas: string[]; delayMs: number } = {
      deltas: ["Hel", "lo", " there"],
      delayMs: 5,
    },
  ) {
    this.addSession("agent:main:main", "session-1");
  }

  addSession(sessionKey: string, sessionId: string): SessionSummary {
    const summary: SessionSummary = {
      sessionKey,
      sessionId,
      agentId: "main",
      updatedAt: 1,
      compactionCount: 0,
    };
    this.sessions.set(sessionKey, summary);
    return summary;
  }

  /** Resolves with the next run that starts after this call. */
  nextRunStart(): Promise<StartedRun> {
    return new Promise((resolve) => this.runStartWaiters.push(resolve));
  }

  async listSessions(options?: { agentId?: string }): Promise<SessionSummary[]> {
    return [...this.sessions.values()].filter(
      (session) => options?.agentId === undefined || session.agentId === options.agentId,
    );
  }

  async createSession(options?: { agentId?: string; sessionKey?: string }): Promise<SessionSummary> {
    const agentId = options?.agentId ?? "main";
    const sessionKey = options?.sessionKey ?? `agent:${agentId}:s${this.sessions.size + 1}`;
    const summary = this.addSession(sessionKey, `session-${this.sessions.size + 1}`);
    summary.agentId = agentId;
    return summary;
  }

  async getSession(reference: string): Promise<SessionDetail> {
    return { ...this.find(reference), messages: [] };
  }

  async deleteSession(reference: string): Promise<void> {
    this.sessions.delete(this.find(reference).sessionKey);
  }

  async status(reference?: string): Promise<{ text: string; data: unknown }> {
    if (reference === undefined) return { text: "agent ok", data: { sessions: this.sessions.size } };
    return { text: `session ${reference}`, data: this.find(reference) };
  }

  async sendMessage(
    reference: string,
    text: string,
    options: SendMessageOptions = {},
  ): Promise<SendMessageResult> {
    const session = this.find(reference);
    if (text.startsWith("/")) return { kind: "command", text: `ran ${text}`, ok: true };
    const run: StartedRun = { reference, text, signal: options.signal };
    this.startedRuns.push(run);
    for (const resolve of this.runStartWaiters.splice(0)) resolve(run);
    const emit = (event: TurnEvent) => options.onEvent?.(event);
    emit({
      type: "run-start",
      sessionKey: session.sessionKey,
      sessionId: session.sessionId,
      model: "scripted",
    });
    try {
      for (const delta of this.script.deltas) {
        await delay(this.script.delayMs, undefined, { signal: options.signal });
        emit({ type: "text-delta", delta });
      }
    } catch {
      this.abortedRuns += 1;
      emit({ type: "run-error", message: "aborted", aborted: true });
      return { kind: "reply", text: "", ok: false, error: { message: "aborted", aborted: true } };
    }
    const reply = this.script.deltas.join("");
    this.finishedRuns += 1;
    emit({ type: "run-end", messages: [], usage: ZERO_USAGE, text: reply });
    return { kind: "reply", text: reply, ok: true };
  }

  async close(): Promise<void> {
    this.closeCalls += 1;
  }

  private find(reference: string): SessionSummary {
    this.referencesSeen.push(reference);
    const session = [...this.sessions.values()].find(
      (candidate) => candidate.sessionKey === reference || candidate.sessionId === reference,
    );
    if (session === undefined) throw new UnknownSessionError("main", reference);
    return session;
  }
}
