/**
 * The HTTP entry point: one log line per request, access checks, routing, and the mapping of
 * whatever a handler threw to a JSON error.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import { checkAccess } from "../access.js";
import { RequestProblem, toRequestProblem } from "../request-problem.js";
import { loggablePath } from "./request-target.js";
import { sendProblem } from "./respond.js";
import { MethodNotAllowed, type RouteContext, routeRequest } from "./routes.js";

export interface RequestListenerContext extends RouteContext {
  token: string | undefined;
  isClosing(): boolean;
  now(): number;
}

/** Never rejects: every failure becomes an answer (or, mid-stream, a closed connection). */
export function createRequestListener(context: RequestListenerContext): RequestListener {
  return (request, response) => {
    logWhenDone(context, request, response);
    void answer(context, request, response);
  };
}

async function answer(
  context: RequestListenerContext,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  try {
    if (context.isClosing()) {
      throw new RequestProblem(503, "shutting_down", "The gateway is shutting down");
    }
    const denied = checkAccess(request.headers, context.token);
    if (denied !== undefined) throw denied;
    await routeRequest(context, request, response);
  } catch (error) {
    const problem = toRequestProblem(error, context.logger);
    if (response.headersSent) {
      response.destroy();
      return;
    }
    sendProblem(response, problem, headersFor(problem));
  }
}

function headersFor(problem: RequestProblem): Record<string, string> {
  if (problem instanceof MethodNotAllowed) return { allow: problem.allowed };
  if (problem.status === 401) return { "www-authenticate": 'Bearer realm="clew"' };
  // The rest of an oversized body is not read, so the connection cannot carry another request.
  if (problem.status === 413 || problem.status === 503) return { connection: "close" };
  return {};
}

/** Logs method, path (never the query, which may hold a token), status and duration; never bodies. */
function logWhenDone(context: RequestListenerContext, request: IncomingMessage, response: ServerResponse) {
  const started = context.now();
  response.once("close", () => {
    const fields: Record<string, unknown> = {
      method: request.method,
      path: loggablePath(request.url),
      status: response.statusCode,
      ms: Math.round(context.now() - started),
    };
    if (!response.writableFinished) fields.aborted = true;
    context.logger.info("gateway request", fields);
  });
}
