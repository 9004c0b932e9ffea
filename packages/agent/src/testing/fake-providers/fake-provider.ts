/**
 * `startFakeProvider`: a real `node:http` server on 127.0.0.1 (ephemeral port) that answers model
 * requests with the protocol's real streaming wire format, one scripted reply per request.
 *
 * Guarantees: every request is recorded before it is answered; waits (`delayMs`, `chunkDelayMs`)
 * stop as soon as the client disconnects or the fake closes; `close()` destroys open connections,
 * so no test hangs on a socket; request bodies are bounded (8 MiB).
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { anthropicMessagesWriter } from "./anthropic-messages.js";
import { openAICompletionsWriter } from "./openai-completions.js";
import { openAIResponsesWriter } from "./openai-responses.js";
import type {
  FakeErrorResponse,
  FakeProtocol,
  FakeProvider,
  FakeProviderOptions,
  FakeReply,
  FakeScript,
  IdSource,
  ProtocolWriter,
  RecordedRequest,
  SseFrame,
} from "./types.js";

const MAX_BODY_BYTES = 8 * 1024 * 1024;

const WRITERS: Record<FakeProtocol, ProtocolWriter> = {
  "openai-completions": openAICompletionsWriter,
  "openai-responses": openAIResponsesWriter,
  "anthropic-messages": anthropicMessagesWriter,
};

/** Starts a fake provider; resolves once it listens. */
export async function startFakeProvider(options: FakeProviderOptions): Promise<FakeProvider> {
  const writer = WRITERS[options.protocol];
  const requests: RecordedRequest[] = [];
  const responseIds: string[] = [];
  const sockets = new Set<Socket>();
  const lifetime = new AbortController();
  const ids = createIdSource(options.model, responseIds);

  const server = createServer((request, response) => {
    handleRequest({ request, response, writer, script: options.script, requests, ids, lifetime }).catch(
      (error: unknown) => {
        // A handler bug must not leave the client waiting; answer what can still be answered.
        if (!response.headersSent)
          sendJson(response, writer.error(500, `fake provider failed: ${String(error)}`));
        else response.destroy();
      },
    );
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= new Promise<void>((resolve) => {
      lifetime.abort();
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    });
    return closing;
  };

  return {
    baseUrl: `http://127.0.0.1:${port}${writer.basePath}`,
    protocol: options.protocol,
    requests,
    responseIds,
    close,
  };
}

/**
 * A script that answers the n-th request with `replies[n]`, and every later one with the last
 * reply. Throws at once when `replies` is empty.
 */
export function scriptedReplies(replies: FakeReply[]): FakeScript {
  if (replies.length === 0) throw new Error("scriptedReplies needs at least one reply");
  let next = 0;
  return () => {
    const reply = replies[Math.min(next, replies.length - 1)] as FakeReply;
    next += 1;
    return reply;
  };
}

interface RequestContext {
  request: IncomingMessage;
  response: ServerResponse;
  writer: ProtocolWriter;
  script: FakeScript;
  requests: RecordedRequest[];
  ids: IdSource;
  lifetime: AbortController;
}

async function handleRequest(context: RequestContext): Promise<void> {
  const { request, response, writer } = context;
  const text = await readBody(request);
  if (text === undefined) {
    sendJson(response, writer.error(413, "request body too large for the fake provider"));
    return;
  }
  const recorded = recordRequest(request, text, context.requests, writer === openAIResponsesWriter);
  const path = recorded.path.split("?")[0] ?? "";
  if (recorded.method !== "POST" || !path.endsWith(writer.endpoint)) {
    sendJson(
      response,
      writer.error(404, `fake provider serves only POST ${writer.endpoint}, not ${recorded.method} ${path}`),
    );
    return;
  }
  let reply: FakeReply;
  try {
    reply = context.script(recorded);
  } catch (error) {
    sendJson(response, writer.error(500, `fake provider script threw: ${String(error)}`));
    return;
  }
  const signal = requestSignal(response, context.lifetime.signal);
  if (reply.delayMs !== undefined && !(await wait(reply.delayMs, signal))) return;
  const failure = errorOf(reply, writer);
  if (failure !== undefined) {
    sendJson(response, failure, reply.headers);
    return;
  }
  await streamFrames(response, writer.frames(reply, recorded, context.ids), reply, signal);
}

function errorOf(reply: FakeReply, writer: ProtocolWriter): FakeErrorResponse | undefined {
  if (reply.overflow) return writer.overflowError();
  if (reply.status !== undefined || reply.error !== undefined) {
    return writer.error(reply.status ?? 500, reply.error ?? "fake provider error");
  }
  return undefined;
}

async function streamFrames(
  response: ServerResponse,
  frames: SseFrame[],
  reply: FakeReply,
  signal: AbortSignal,
): Promise<void> {
  response.writeHead(200, {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    ...reply.headers,
  });
  for (const [index, frame] of frames.entries()) {
    if (signal.aborted) return;
    response.write(formatFrame(frame));
    const isLast = index === frames.length - 1;
    if (!isLast && reply.chunkDelayMs !== undefined && !(await wait(reply.chunkDelayMs, signal))) return;
  }
  response.end();
}

function formatFrame(frame: SseFrame): string {
  return `${frame.event === undefined ? "" : `event: ${frame.event}\n`}data: ${frame.data}\n\n`;
}

function sendJson(
  response: ServerResponse,
  failure: FakeErrorResponse,
  headers: Record<string, string> = {},
): void {
  response.writeHead(failure.status, { "content-type": "application/json", ...headers });
  response.end(JSON.stringify(failure.body));
}

/** The body as text, or `undefined` when it exceeds the limit. */
async function readBody(request: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

function recordRequest(
  request: IncomingMessage,
  text: string,
  requests: RecordedRequest[],
  tracksPreviousResponse: boolean,
): RecordedRequest {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value;
  }
  const recorded: RecordedRequest = {
    index: requests.length,
    method: request.method ?? "GET",
    path: request.url ?? "/",
    headers,
    body: parseJson(text),
  };
  const previous = (recorded.body as { previous_response_id?: unknown } | undefined)?.previous_response_id;
  if (tracksPreviousResponse && typeof previous === "string") recorded.previousResponseId = previous;
  requests.push(recorded);
  return recorded;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Fires when the client goes away before the answer ended, or when the fake closes. */
function requestSignal(response: ServerResponse, lifetime: AbortSignal): AbortSignal {
  const controller = new AbortController();
  response.on("close", () => {
    if (!response.writableFinished) controller.abort();
  });
  return AbortSignal.any([controller.signal, lifetime]);
}

/** Waits `ms`; false when `signal` fired first. */
async function wait(ms: number, signal: AbortSignal): Promise<boolean> {
  try {
    await sleep(ms, undefined, { signal });
    return true;
  } catch {
    return false;
  }
}

function createIdSource(model: string | undefined, responseIds: string[]): IdSource {
  const counters = new Map<string, number>();
  return {
    next(prefix) {
      const count = (counters.get(prefix) ?? 0) + 1;
      counters.set(prefix, count);
      const id = `${prefix}_fake_${count}`;
      if (prefix === "resp") responseIds.push(id);
      return id;
    },
    model(request) {
      const requested = (request.body as { model?: unknown } | undefined)?.model;
      return model ?? (typeof requested === "string" ? requested : "fake-model");
    },
  };
}
