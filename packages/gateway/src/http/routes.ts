/**
 * The JSON API under `/v1`. Routing is by raw path segments; a session reference is decoded and
 * checked before anything else looks at the path, so a bad one is always a 400 naming `session`
 * and never reaches the service.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AgentService } from "@clew/agent";
import type { Logger } from "@clew/core";
import { RequestProblem } from "../request-problem.js";
import type { RunTracker } from "../run-tracker.js";
import {
  checkAgentId,
  checkSessionReference,
  decodeSessionReference,
  parseCommandRequest,
  parseCreateSessionRequest,
  parseMessageRequest,
} from "../validation.js";
import { readJsonBody } from "./read-json-body.js";
import { parseRequestTarget, type RequestTarget, rejectDotSegments } from "./request-target.js";
import { sendJson, sendNoContent } from "./respond.js";
import { sendMessageOverHttp } from "./send-message-route.js";

export interface RouteContext {
  service: AgentService;
  runs: RunTracker;
  logger: Logger;
  maxBodyBytes: number;
}

interface Exchange {
  request: IncomingMessage;
  response: ServerResponse;
  target: RequestTarget;
  /** The checked session reference of `/v1/sessions/:ref…` routes. */
  reference: string;
}

type Handler = (context: RouteContext, exchange: Exchange) => Promise<void>;

interface Route {
  handlers: Partial<Record<string, Handler>>;
  /** Set for `/v1/sessions/:ref…` routes only. */
  reference?: string;
}

/** Answers one request; throws `RequestProblem` (or the service's error) for the caller to map. */
export async function routeRequest(
  context: RouteContext,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const target = parseRequestTarget(request.url);
  const route = resolveRoute(target.segments);
  if (route === undefined) throw new RequestProblem(404, "not_found", "No such route");
  const handler = route.handlers[request.method ?? ""];
  if (handler === undefined) {
    const allowed = Object.keys(route.handlers).join(", ");
    throw new MethodNotAllowed(allowed);
  }
  await handler(context, { request, response, target, reference: route.reference ?? "" });
}

/** A 405 that carries the methods the route does accept, for the `allow` header. */
export class MethodNotAllowed extends RequestProblem {
  readonly allowed: string;

  constructor(allowed: string) {
    super(405, "method_not_allowed", `Use ${allowed} on this route`);
    this.allowed = allowed;
  }
}

function resolveRoute(segments: string[]): Route | undefined {
  const [version, collection, rawReference, action, ...rest] = segments;
  if (version !== "v1") return undefined;
  if (collection === "sessions" && rawReference !== undefined) {
    const reference = decodeSessionReference(rawReference);
    rejectDotSegments(segments);
    if (rest.length > 0) return undefined;
    if (action === undefined) return { handlers: { GET: getSession, DELETE: deleteSession }, reference };
    if (action === "messages") return { handlers: { POST: postMessage }, reference };
    if (action === "commands") return { handlers: { POST: postCommand }, reference };
    return undefined;
  }
  rejectDotSegments(segments);
  if (rawReference !== undefined) return undefined;
  if (collection === "health") return { handlers: { GET: health } };
  if (collection === "status") return { handlers: { GET: status } };
  if (collection === "sessions") return { handlers: { GET: listSessions, POST: createSession } };
  if (collection === "ws") return { handlers: { GET: webSocketOnly } };
  return undefined;
}

const health: Handler = async (_context, { response }) => {
  sendJson(response, 200, { ok: true });
};

const status: Handler = async (context, { response, target }) => {
  const session = target.query.get("session");
  const reference = session === null ? undefined : checkSessionReference(session);
  sendJson(response, 200, await context.service.status(reference));
};

const listSessions: Handler = async (context, { response, target }) => {
  const agent = target.query.get("agent");
  const options = agent === null ? undefined : { agentId: checkAgentId(agent, "agent") };
  sendJson(response, 200, { sessions: await context.service.listSessions(options) });
};

const createSession: Handler = async (context, { request, response }) => {
  const body = await readJsonBody(request, context.maxBodyBytes);
  const summary = await context.service.createSession(parseCreateSessionRequest(body));
  sendJson(response, 201, summary);
};

const getSession: Handler = async (context, { response, reference }) => {
  sendJson(response, 200, await context.service.getSession(reference));
};

const deleteSession: Handler = async (context, { response, reference }) => {
  await context.service.deleteSession(reference);
  sendNoContent(response);
};

const postMessage: Handler = async (context, exchange) => {
  const message = parseMessageRequest(await readJsonBody(exchange.request, context.maxBodyBytes));
  await sendMessageOverHttp(context, exchange, exchange.reference, message);
};

const postCommand: Handler = async (context, exchange) => {
  const command = parseCommandRequest(await readJsonBody(exchange.request, context.maxBodyBytes));
  await sendMessageOverHttp(context, exchange, exchange.reference, command);
};

const webSocketOnly: Handler = async () => {
  throw new RequestProblem(426, "upgrade_required", "Open /v1/ws as a WebSocket");
};
