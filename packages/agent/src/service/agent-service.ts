/**
 * What front ends (the gateway, `clew chat`) ask of a running agent. One implementation runs the
 * agent in this process (`LocalAgentService`); `clew chat --url` talks to a gateway that serves the
 * same operations over HTTP.
 *
 * Contract:
 * - Sessions are named by session key (`agent:<agentId>:<name>`) or session id. Unknown ones reject
 *   with `UnknownSessionError`.
 * - `sendMessage` runs commands and directives itself (a message that is only a command never
 *   reaches the model) and streams the run's events to `onEvent`; it resolves when the run ends,
 *   also when it failed (the failure is in the result and in a `run-error` event), and rejects
 *   only for bad input or an unknown session.
 * - `close` stops accepting work, aborts or finishes runs in progress, and disposes engines.
 */
import type { TurnEventListener } from "../runner/events.js";

export interface SessionSummary {
  sessionKey: string;
  sessionId: string;
  agentId: string;
  updatedAt: number;
  model?: string;
  compactionCount: number;
  contextTokens?: number;
}

export interface SessionDetail extends SessionSummary {
  /** The stored messages of the active branch, oldest first. */
  messages: unknown[];
}

export interface SendMessageOptions {
  onEvent?: TurnEventListener;
  signal?: AbortSignal;
  /** Whether the sender may run commands and inline shortcuts. Default true (local user). */
  authorized?: boolean;
}

export interface SendMessageResult {
  /** `command`: a command or directive answered; `reply`: the model ran. */
  kind: "command" | "reply";
  /** What to show the user: the reply text (with the usage footer) or the command's answer. */
  text: string;
  ok: boolean;
  error?: { message: string; code?: string; aborted: boolean };
}

export interface AgentService {
  listSessions(options?: { agentId?: string }): Promise<SessionSummary[]>;
  createSession(options?: { agentId?: string; sessionKey?: string }): Promise<SessionSummary>;
  getSession(reference: string): Promise<SessionDetail>;
  deleteSession(reference: string): Promise<void>;
  sendMessage(reference: string, text: string, options?: SendMessageOptions): Promise<SendMessageResult>;
  /** Status of the agent, and of a session when one is named. */
  status(reference?: string): Promise<{ text: string; data: unknown }>;
  close(): Promise<void>;
}
