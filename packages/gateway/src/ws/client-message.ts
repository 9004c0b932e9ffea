/**
 * The WebSocket protocol, client side: `{ id, type: "send", session, text }` starts a run and
 * `{ id, type: "abort", session }` aborts this connection's runs on that session. The server answers
 * a run with `{ id, event }` per TurnEvent and one final `{ id, result }`; an abort with
 * `{ id, result: { aborted } }`; anything invalid with `{ id?, error: { code, message, field? } }`.
 */
import { invalidField, RequestProblem } from "../request-problem.js";
import { checkSessionReference, checkText } from "../validation.js";

export type RequestId = string | number;

export type ClientMessage =
  | { id: RequestId; type: "send"; session: string; text: string }
  | { id: RequestId; type: "abort"; session: string };

/** A protocol error, with the request id when the message carried a usable one. */
export class ClientMessageProblem extends RequestProblem {
  readonly id: RequestId | undefined;

  constructor(problem: RequestProblem, id: RequestId | undefined) {
    super(problem.status, problem.code, problem.message, problem.field);
    this.id = id;
  }
}

/** Parses one text frame; throws `ClientMessageProblem`. */
export function parseClientMessage(frame: string): ClientMessage {
  let parsed: unknown;
  try {
    parsed = JSON.parse(frame);
  } catch {
    throw new ClientMessageProblem(
      new RequestProblem(400, "invalid_json", "The message is not JSON"),
      undefined,
    );
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new ClientMessageProblem(
      new RequestProblem(400, "invalid_request", "The message must be a JSON object"),
      undefined,
    );
  }
  const fields = parsed as Record<string, unknown>;
  const id = readId(fields.id);
  try {
    return readMessage(fields, id);
  } catch (error) {
    if (error instanceof RequestProblem) throw new ClientMessageProblem(error, id);
    throw error;
  }
}

function readMessage(fields: Record<string, unknown>, id: RequestId | undefined): ClientMessage {
  if (id === undefined) {
    throw invalidField("id", "id must be a non-empty string of at most 200 characters or a finite number");
  }
  if (fields.type !== "send" && fields.type !== "abort") {
    throw invalidField("type", 'type must be "send" or "abort"');
  }
  const allowed = fields.type === "send" ? ["id", "type", "session", "text"] : ["id", "type", "session"];
  for (const key of Object.keys(fields)) {
    if (!allowed.includes(key)) throw invalidField(key, `Unknown field "${key}"`);
  }
  const session = checkSessionReference(fields.session);
  if (fields.type === "abort") return { id, type: "abort", session };
  return { id, type: "send", session, text: checkText(fields.text, "text") };
}

function readId(value: unknown): RequestId | undefined {
  if (typeof value === "number" && Number.isFinite(value)) return value;
  if (typeof value === "string" && value.length > 0 && value.length <= 200) return value;
  return undefined;
}
