/**
 * Who may talk to the gateway. With a token, every HTTP request and WebSocket upgrade must present
 * it. Without one (loopback only), requests must name a loopback host and come from no browser
 * origin or a loopback one: that keeps web pages, including ones that rebind their domain to
 * 127.0.0.1, from driving the agent.
 */
import type { IncomingHttpHeaders } from "node:http";
import { bearerToken, tokensMatch } from "./auth.js";
import { isLoopbackHost, isLoopbackHostHeader } from "./loopback.js";
import { RequestProblem } from "./request-problem.js";

/**
 * The problem to answer with, or undefined when the request may proceed. `queryToken` is the
 * `?token=` of a WebSocket upgrade (browsers cannot set headers on those); HTTP requests pass none.
 */
export function checkAccess(
  headers: IncomingHttpHeaders,
  token: string | undefined,
  queryToken?: string,
): RequestProblem | undefined {
  if (token !== undefined) {
    const presented = bearerToken(headers.authorization) ?? queryToken;
    if (tokensMatch(presented, token)) return undefined;
    return new RequestProblem(401, "unauthorized", "Send Authorization: Bearer <token>");
  }
  if (!isLoopbackHostHeader(headers.host)) {
    return new RequestProblem(403, "forbidden_host", "The Host header must name a loopback address");
  }
  if (headers.origin !== undefined && !isLoopbackOrigin(headers.origin)) {
    return new RequestProblem(403, "forbidden_origin", "Requests from web pages are not accepted");
  }
  return undefined;
}

function isLoopbackOrigin(origin: string): boolean {
  try {
    return isLoopbackHost(new URL(origin).hostname);
  } catch {
    return false;
  }
}
