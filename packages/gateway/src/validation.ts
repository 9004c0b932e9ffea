/**
 * Checks on everything a client names or sends, shared by the HTTP routes and the WebSocket
 * protocol. A session reference is checked before anything uses it: it may name a file on disk
 * further down, so only a narrow alphabet passes and path separators and `..` never do.
 */
import { invalidField, RequestProblem } from "./request-problem.js";

/** Longest message or command, in UTF-16 code units. */
export const MAX_MESSAGE_LENGTH = 100_000;

const SESSION_REFERENCE_PATTERN = /^[A-Za-z0-9._:-]{1,200}$/;
const AGENT_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** Returns `value` when it is a safe session reference; otherwise a 400 naming `field`. */
export function checkSessionReference(value: unknown, field = "session"): string {
  if (typeof value !== "string") throw invalidField(field, `${field} must be a string`);
  if (!SESSION_REFERENCE_PATTERN.test(value) || value.includes("..")) {
    throw invalidField(
      field,
      `${field} must be 1 to 200 letters, digits, ".", "_", ":" or "-", without ".."`,
    );
  }
  return value;
}

/** Decodes one percent-encoded path segment and checks it as a session reference. */
export function decodeSessionReference(rawSegment: string): string {
  let decoded: string;
  try {
    decoded = decodeURIComponent(rawSegment);
  } catch {
    throw invalidField("session", "session is not a valid percent-encoded path segment");
  }
  return checkSessionReference(decoded);
}

export function checkAgentId(value: unknown, field: string): string {
  if (typeof value !== "string" || !AGENT_ID_PATTERN.test(value)) {
    throw invalidField(
      field,
      `${field} must be 1 to 64 letters, digits, ".", "_" or "-", starting with a letter or digit`,
    );
  }
  return value;
}

export interface MessageRequest {
  text: string;
  stream: boolean;
}

/** `POST …/messages`: `{ text, stream? }`. */
export function parseMessageRequest(body: unknown): MessageRequest {
  const fields = requireObject(body, ["text", "stream"]);
  return { text: checkText(fields.text, "text"), stream: optionalBoolean(fields.stream, "stream") };
}

/** `POST …/commands`: `{ command, stream? }`; the command is sent as the message text. */
export function parseCommandRequest(body: unknown): MessageRequest {
  const fields = requireObject(body, ["command", "stream"]);
  const command = checkText(fields.command, "command");
  if (!command.startsWith("/") || command.length < 2) {
    throw invalidField("command", 'command must start with "/" followed by its name');
  }
  return { text: command, stream: optionalBoolean(fields.stream, "stream") };
}

/** `POST /v1/sessions`: `{ agentId?, sessionKey? }`; no body means neither. */
export function parseCreateSessionRequest(body: unknown): { agentId?: string; sessionKey?: string } {
  if (body === undefined) return {};
  const fields = requireObject(body, ["agentId", "sessionKey"]);
  const request: { agentId?: string; sessionKey?: string } = {};
  if (fields.agentId !== undefined) request.agentId = checkAgentId(fields.agentId, "agentId");
  if (fields.sessionKey !== undefined) {
    request.sessionKey = checkSessionReference(fields.sessionKey, "sessionKey");
  }
  return request;
}

/** The text of a message: a string of 1 to `MAX_MESSAGE_LENGTH` code units. */
export function checkText(value: unknown, field: string): string {
  if (value === undefined) throw invalidField(field, `${field} is required`);
  if (typeof value !== "string") throw invalidField(field, `${field} must be a string`);
  if (value.length === 0) throw invalidField(field, `${field} must not be empty`);
  if (value.length > MAX_MESSAGE_LENGTH) {
    throw invalidField(field, `${field} is longer than ${MAX_MESSAGE_LENGTH} characters`);
  }
  return value;
}

/** A JSON object with only `allowed` keys; an unknown key is named, so typos do not pass silently. */
export function requireObject(body: unknown, allowed: readonly string[]): Record<string, unknown> {
  if (body === undefined) {
    throw new RequestProblem(400, "invalid_request", "A JSON object body is required", "body");
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new RequestProblem(400, "invalid_request", "The body must be a JSON object", "body");
  }
  const fields = body as Record<string, unknown>;
  for (const key of Object.keys(fields)) {
    if (!allowed.includes(key)) throw invalidField(key, `Unknown field "${key}"`);
  }
  return fields;
}

function optionalBoolean(value: unknown, field: string): boolean {
  if (value === undefined) return false;
  if (typeof value !== "boolean") throw invalidField(field, `${field} must be a boolean`);
  return value;
}
