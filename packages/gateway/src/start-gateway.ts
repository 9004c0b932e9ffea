/**
 * Starts the gateway: the JSON API and `/v1/ws` on one `node:http` server, in front of one
 * `AgentService`.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import {
  type GatewayOptions,
  type ResolvedGatewayOptions,
  resolveGatewayOptions,
} from "./gateway-options.js";
import { createRequestListener } from "./http/request-listener.js";
import { abortError, RunTracker } from "./run-tracker.js";
import { WebSocketGateway } from "./ws/websocket-gateway.js";

export interface Gateway {
  /** `http://host:port`, the base of every route. */
  url: string;
  port: number;
  /**
   * Stops accepting connections, lets runs in progress finish for up to `shutdownGraceMs`, aborts
   * the rest (their AbortSignals fire), closes WebSockets and connections, then calls
   * `service.close()` once. Idempotent: every call returns the same promise, which rejects only
   * when `service.close()` does.
   */
  close(): Promise<void>;
}

/** How long aborted runs get to wind down before connections are cut. */
const ABORT_SETTLE_MS = 2_000;

/**
 * Binds and serves. Throws `GatewayConfigError` before binding for unsafe or invalid options (see
 * `resolveGatewayOptions`); rejects with the system error when the address cannot be bound.
 */
export async function startGateway(options: GatewayOptions): Promise<Gateway> {
  const settings = resolveGatewayOptions(options);
  const runs = new RunTracker();
  let closing = false;
  const context = { ...settings, runs, isClosing: () => closing };
  const webSockets = new WebSocketGateway({ ...context, maxPayloadBytes: settings.maxBodyBytes });
  const server = createServer(createRequestListener(context));
  server.on("upgrade", (request, socket, head) => webSockets.handleUpgrade(request, socket, head));
  let port: number;
  try {
    port = await listen(server, settings);
  } catch (error) {
    await webSockets.closeAll();
    throw error;
  }
  settings.logger.info("gateway listening", {
    host: settings.host,
    port,
    auth: settings.token !== undefined,
  });

  let closed: Promise<void> | undefined;
  const close = () => {
    closing = true;
    closed ??= shutDown(server, webSockets, runs, settings);
    return closed;
  };
  return { url: `http://${formatHost(settings.host)}:${port}`, port, close };
}

async function shutDown(
  server: Server,
  webSockets: WebSocketGateway,
  runs: RunTracker,
  settings: ResolvedGatewayOptions,
): Promise<void> {
  const { logger } = settings;
  const serverClosed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  logger.info("gateway closing", { runsInProgress: runs.size });
  const finished = await runs.waitForIdle(settings.shutdownGraceMs);
  if (!finished) {
    logger.warn("gateway aborting runs after the grace period", { runsAborted: runs.size });
    runs.abortAll(abortError("The gateway is shutting down"));
    await runs.waitForIdle(ABORT_SETTLE_MS);
  }
  await webSockets.closeAll();
  server.closeAllConnections();
  await serverClosed;
  await settings.service.close();
  logger.info("gateway closed");
}

function listen(server: Server, settings: ResolvedGatewayOptions): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(settings.port, settings.host, () => {
      server.off("error", reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

function formatHost(host: string): string {
  return host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
}
