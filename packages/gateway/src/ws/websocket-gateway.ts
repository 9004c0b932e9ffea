/**
 * `/v1/ws`: accepts upgrades that pass the same access rules as HTTP (the token may also come as
 * `?token=`), keeps connections alive with pings, and closes them all at shutdown.
 */
import type { IncomingMessage } from "node:http";
import { STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import { WebSocketServer } from "ws";
import { checkAccess } from "../access.js";
import { loggablePath, parseRequestTarget } from "../http/request-target.js";
import { RequestProblem } from "../request-problem.js";
import { type ConnectionContext, GatewayConnection } from "./gateway-connection.js";

export interface WebSocketGatewayOptions extends ConnectionContext {
  token: string | undefined;
  maxPayloadBytes: number;
  pingIntervalMs: number;
}

/** How long clients get to answer the closing handshake at shutdown before they are cut off. */
const CLOSE_HANDSHAKE_MS = 1_000;

export class WebSocketGateway {
  private readonly server: WebSocketServer;
  private readonly connections = new Set<GatewayConnection>();
  private readonly keepalive: NodeJS.Timeout;

  constructor(private readonly options: WebSocketGatewayOptions) {
    this.server = new WebSocketServer({ noServer: true, maxPayload: options.maxPayloadBytes });
    this.keepalive = setInterval(() => {
      for (const connection of this.connections) connection.checkAlive();
    }, options.pingIntervalMs);
    this.keepalive.unref();
  }

  /** Takes over an HTTP upgrade: completes it for an allowed `/v1/ws`, or answers and closes the socket. */
  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    const started = this.options.now();
    const problem = this.checkUpgrade(request);
    if (problem !== undefined) {
      rejectUpgrade(socket, problem);
      this.logUpgrade(request, problem.status, started);
      return;
    }
    this.server.handleUpgrade(request, socket, head, (webSocket) => {
      this.logUpgrade(request, 101, started);
      const connection = new GatewayConnection(webSocket, this.options);
      this.connections.add(connection);
      webSocket.once("close", () => this.connections.delete(connection));
    });
  }

  /** Closes every connection (1001), cutting off the ones that do not answer in time. */
  async closeAll(): Promise<void> {
    clearInterval(this.keepalive);
    const closed = [...this.connections].map(
      (connection) =>
        new Promise<void>((resolve) => {
          const timer = setTimeout(() => {
            connection.socket.terminate();
            resolve();
          }, CLOSE_HANDSHAKE_MS);
          connection.socket.once("close", () => {
            clearTimeout(timer);
            resolve();
          });
          connection.socket.close(1001, "The gateway is shutting down");
        }),
    );
    await Promise.all(closed);
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private checkUpgrade(request: IncomingMessage): RequestProblem | undefined {
    if (this.options.isClosing()) {
      return new RequestProblem(503, "shutting_down", "The gateway is shutting down");
    }
    let target: ReturnType<typeof parseRequestTarget>;
    try {
      target = parseRequestTarget(request.url);
    } catch (error) {
      if (error instanceof RequestProblem) return error;
      throw error;
    }
    const denied = checkAccess(request.headers, this.options.token, target.query.get("token") ?? undefined);
    if (denied !== undefined) return denied;
    if (target.pathname !== "/v1/ws") return new RequestProblem(404, "not_found", "No such route");
    return undefined;
  }

  private logUpgrade(request: IncomingMessage, status: number, started: number): void {
    this.options.logger.info("gateway request", {
      method: request.method,
      path: loggablePath(request.url),
      status,
      ms: Math.round(this.options.now() - started),
      upgrade: "websocket",
    });
  }
}

function rejectUpgrade(socket: Duplex, problem: RequestProblem): void {
  const body = JSON.stringify({ error: problem.toBody() });
  const head = [
    `HTTP/1.1 ${problem.status} ${STATUS_CODES[problem.status] ?? "Error"}`,
    "connection: close",
    "content-type: application/json; charset=utf-8",
    `content-length: ${Buffer.byteLength(body)}`,
  ];
  if (problem.status === 401) head.push('www-authenticate: Bearer realm="clew"');
  // Node hands upgrade sockets over without its error handler; a reset here must not crash the process.
  socket.on("error", () => socket.destroy());
  socket.once("finish", () => socket.destroy());
  socket.end(`${head.join("\r\n")}\r\n\r\n${body}`);
}
