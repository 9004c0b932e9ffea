/**
 * `POST /v1/sessions/:ref/messages` and `/commands`: one run of the agent, answered as one JSON
 * result or streamed as Server-Sent Events. The run's AbortSignal fires when the client goes away
 * before the answer is complete, and at shutdown.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AgentService, SendMessageResult, TurnEvent } from "@clew/agent";
import type { Logger } from "@clew/core";
import { toRequestProblem } from "../request-problem.js";
import { abortError, type RunTracker } from "../run-tracker.js";
import type { MessageRequest } from "../validation.js";
import { sendJson } from "./respond.js";

export interface SendMessageRouteContext {
  service: AgentService;
  runs: RunTracker;
  logger: Logger;
}

/**
 * Runs the message. Without streaming, a rejection of `sendMessage` (unknown session, bad input)
 * propagates to the caller, which answers with a JSON error. With streaming, headers are held back
 * until the first event, so such a rejection still gets its proper status; after that it becomes
 * a final `event: error`.
 */
export async function sendMessageOverHttp(
  context: SendMessageRouteContext,
  exchange: { request: IncomingMessage; response: ServerResponse },
  reference: string,
  message: MessageRequest,
): Promise<void> {
  const { request, response } = exchange;
  const streaming = message.stream || acceptsEventStream(request);
  const events = streaming ? new EventStreamWriter(response) : undefined;
  const { controller, result } = context.runs.track((signal) =>
    context.service.sendMessage(reference, message.text, {
      signal,
      onEvent: events === undefined ? undefined : (event: TurnEvent) => events.send(event.type, event),
    }),
  );
  response.once("close", () => {
    if (!response.writableFinished)
      controller.abort(abortError("The client disconnected before the run finished"));
  });
  // The client may have left while the body was read, before the listener existed.
  if (response.destroyed) controller.abort(abortError("The client disconnected before the run finished"));
  if (events === undefined) {
    sendJson(response, 200, await result);
    return;
  }
  await streamResult(context, events, result);
}

async function streamResult(
  context: SendMessageRouteContext,
  events: EventStreamWriter,
  result: Promise<SendMessageResult>,
): Promise<void> {
  let outcome: SendMessageResult;
  try {
    outcome = await result;
  } catch (error) {
    if (!events.opened) throw error;
    events.send("error", { error: toRequestProblem(error, context.logger).toBody() });
    events.end();
    return;
  }
  events.send("result", outcome);
  events.end();
}

function acceptsEventStream(request: IncomingMessage): boolean {
  return (request.headers.accept ?? "").toLowerCase().includes("text/event-stream");
}

/** Writes `event: <name>\ndata: <json>` frames; sends the headers with the first frame. */
class EventStreamWriter {
  opened = false;

  constructor(private readonly response: ServerResponse) {}

  send(name: string, data: unknown): void {
    if (this.response.destroyed || this.response.writableEnded) return;
    if (!this.opened) this.open();
    // JSON.stringify never emits a raw newline, so one `data:` line carries the whole payload.
    this.response.write(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);
  }

  end(): void {
    if (!this.response.writableEnded) this.response.end();
  }

  private open(): void {
    this.opened = true;
    this.response.writeHead(200, {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
      "x-accel-buffering": "no",
    });
  }
}
