/**
 * One WebSocket client. Its runs are keyed by the request id it chose; they are aborted when it
 * sends `abort` for their session, when it disconnects, and at shutdown (through the tracker).
 */
import type { AgentService, TurnEvent } from "@clew/agent";
import type { Logger } from "@clew/core";
import { type RawData, WebSocket } from "ws";
import { RequestProblem, toRequestProblem } from "../request-problem.js";
import { abortError, type RunTracker } from "../run-tracker.js";
import {
  type ClientMessage,
  ClientMessageProblem,
  parseClientMessage,
  type RequestId,
} from "./client-message.js";

/** A client may not run more than this many messages at once; more is refused, not queued. */
export const MAX_RUNS_PER_CONNECTION = 8;

export interface ConnectionContext {
  service: AgentService;
  runs: RunTracker;
  logger: Logger;
  isClosing(): boolean;
  now(): number;
}

export class GatewayConnection {
  /** Cleared before each ping, set by the pong; a connection still cleared at the next ping is dead. */
  alive = true;
  private readonly activeRuns = new Map<RequestId, { session: string; controller: AbortController }>();

  constructor(
    readonly socket: WebSocket,
    private readonly context: ConnectionContext,
  ) {
    socket.on("message", (data, isBinary) => this.receive(data, isBinary));
    socket.on("pong", () => {
      this.alive = true;
    });
    socket.on("close", () => this.abortAll());
    socket.on("error", (error) => context.logger.warn("gateway websocket error", { error: error.message }));
  }

  /** Pings the client, or terminates it when the previous ping went unanswered. */
  checkAlive(): void {
    if (!this.alive) {
      this.socket.terminate();
      return;
    }
    this.alive = false;
    this.socket.ping();
  }

  private receive(data: RawData, isBinary: boolean): void {
    let message: ClientMessage;
    try {
      if (isBinary) throw new RequestProblem(400, "invalid_request", "Send JSON text frames");
      message = parseClientMessage(rawDataToText(data));
    } catch (error) {
      const id = error instanceof ClientMessageProblem ? error.id : undefined;
      this.sendError(id, toRequestProblem(error, this.context.logger));
      return;
    }
    if (this.context.isClosing()) {
      this.sendError(message.id, new RequestProblem(503, "shutting_down", "The gateway is shutting down"));
      return;
    }
    if (message.type === "abort") this.abortSession(message.id, message.session);
    else this.startRun(message.id, message.session, message.text);
  }

  private startRun(id: RequestId, session: string, text: string): void {
    if (this.activeRuns.has(id)) {
      this.sendError(id, new RequestProblem(409, "duplicate_id", "A run with this id is in progress", "id"));
      return;
    }
    if (this.activeRuns.size >= MAX_RUNS_PER_CONNECTION) {
      const message = `At most ${MAX_RUNS_PER_CONNECTION} runs may be in progress per connection`;
      this.sendError(id, new RequestProblem(429, "too_many_runs", message));
      return;
    }
    const started = this.context.now();
    const { controller, result } = this.context.runs.track((signal) =>
      this.context.service.sendMessage(session, text, {
        signal,
        onEvent: (event: TurnEvent) => this.send({ id, event }),
      }),
    );
    this.activeRuns.set(id, { session, controller });
    result.then(
      (outcome) => this.finishRun(id, started, { id, result: outcome }),
      (error: unknown) =>
        this.finishRun(id, started, { id, error: toRequestProblem(error, this.context.logger).toBody() }),
    );
  }

  private finishRun(id: RequestId, started: number, answer: object): void {
    // Free the id first, so a client may reuse it as soon as it reads the answer.
    this.activeRuns.delete(id);
    this.send(answer);
    const outcome = "error" in answer ? "error" : "result";
    this.context.logger.debug("gateway websocket run", { outcome, ms: this.context.now() - started });
  }

  private abortSession(id: RequestId, session: string): void {
    let aborted = 0;
    for (const run of this.activeRuns.values()) {
      if (run.session !== session || run.controller.signal.aborted) continue;
      run.controller.abort(abortError("The client aborted the run"));
      aborted += 1;
    }
    this.send({ id, result: { aborted } });
  }

  private abortAll(): void {
    for (const run of this.activeRuns.values()) {
      run.controller.abort(abortError("The client disconnected before the run finished"));
    }
  }

  private sendError(id: RequestId | undefined, problem: RequestProblem): void {
    this.send(id === undefined ? { error: problem.toBody() } : { id, error: problem.toBody() });
  }

  private send(payload: object): void {
    if (this.socket.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify(payload));
  }
}

function rawDataToText(data: RawData): string {
  if (Buffer.isBuffer(data)) return data.toString("utf8");
  if (Array.isArray(data)) return Buffer.concat(data).toString("utf8");
  return Buffer.from(data).toString("utf8");
}
