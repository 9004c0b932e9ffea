/** What `startGateway` takes, its defaults, and the checks that refuse unsafe or invalid setups. */
import type { AgentService } from "@clew/agent";
import { GatewayConfigError, type Logger } from "@clew/core";
import { isLoopbackHost } from "./loopback.js";

export interface GatewayOptions {
  /** The agent the gateway serves; the gateway calls nothing else. */
  service: AgentService;
  logger: Logger;
  /** Bind address. Default `127.0.0.1`; anything not loopback requires `token`. */
  host?: string;
  /** Default 0: the system picks a free port, reported in the result. */
  port?: number;
  /** When set, every request needs `Authorization: Bearer <token>` (WebSockets may use `?token=`). */
  token?: string;
  /** Largest request body (and WebSocket message). Default 1 MiB. */
  maxBodyBytes?: number;
  /** How long `close()` lets runs in progress finish before aborting them. Default 10 s. */
  shutdownGraceMs?: number;
  /** WebSocket ping interval; a client that has not answered the previous ping is dropped. Default 30 s. */
  pingIntervalMs?: number;
  /** Clock for request durations, in milliseconds. Default `performance.now`. */
  now?: () => number;
}

export interface ResolvedGatewayOptions {
  service: AgentService;
  logger: Logger;
  host: string;
  port: number;
  token: string | undefined;
  maxBodyBytes: number;
  shutdownGraceMs: number;
  pingIntervalMs: number;
  now: () => number;
}

export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
export const DEFAULT_SHUTDOWN_GRACE_MS = 10_000;
export const DEFAULT_PING_INTERVAL_MS = 30_000;

/**
 * Applies defaults and checks every option. Throws `GatewayConfigError` naming the option: a
 * non-loopback `host` without `token`, an empty token, a port outside 0..65535, a non-positive
 * size or interval, a negative grace period.
 */
export function resolveGatewayOptions(options: GatewayOptions): ResolvedGatewayOptions {
  const host = options.host ?? "127.0.0.1";
  const token = options.token;
  if (token !== undefined && (typeof token !== "string" || token.trim() === "")) {
    throw new GatewayConfigError("token", "the token must be a non-empty string");
  }
  if (token === undefined && !isLoopbackHost(host)) {
    throw new GatewayConfigError(
      "host",
      `binding to "${host}" exposes the agent beyond this machine; set a token or bind to 127.0.0.1, ::1 or localhost`,
    );
  }
  return {
    service: options.service,
    logger: options.logger,
    host,
    port: checkInteger("port", options.port ?? 0, 0, 65_535),
    token,
    maxBodyBytes: checkInteger("maxBodyBytes", options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES, 1),
    shutdownGraceMs: checkInteger("shutdownGraceMs", options.shutdownGraceMs ?? DEFAULT_SHUTDOWN_GRACE_MS, 0),
    pingIntervalMs: checkInteger("pingIntervalMs", options.pingIntervalMs ?? DEFAULT_PING_INTERVAL_MS, 1),
    now: options.now ?? (() => performance.now()),
  };
}

function checkInteger(option: string, value: number, minimum: number, maximum = Number.MAX_SAFE_INTEGER) {
  if (!Number.isInteger(value) || value < minimum || value > maximum) {
    throw new GatewayConfigError(option, `expected an integer from ${minimum} to ${maximum}, got ${value}`);
  }
  return value;
}
