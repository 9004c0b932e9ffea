/**
 * Types of the fake model providers: local HTTP servers that speak the streaming wire protocols
 * pi-ai's providers use, so tests exercise the real SDKs and pi-ai's parsers end to end.
 */

/** The wire protocol a fake speaks; the names are pi-ai's `api` values. */
export type FakeProtocol = "openai-completions" | "openai-responses" | "anthropic-messages";

export interface FakeToolCall {
  /** The provider's call id; the fake generates one when absent. */
  id?: string;
  name: string;
  arguments: Record<string, unknown>;
}

/** Token counts in pi-ai's sense: `input` excludes cache reads. */
export interface FakeUsage {
  input: number;
  output: number;
  cacheRead?: number;
}

/**
 * What the fake answers to one request. Exactly one kind applies, checked in this order:
 * `overflow` (the protocol's real context-overflow error), `status`/`error` (an error response),
 * otherwise a streamed reply with `text` and then `toolCalls`.
 */
export interface FakeReply {
  text?: string;
  toolCalls?: FakeToolCall[];
  /** Default `{ input: 10, output: 5, cacheRead: 0 }`. */
  usage?: FakeUsage;
  overflow?: true;
  /**
   * HTTP status of an error response (default 500 when only `error` is set). The SDKs retry
   * 408/409/429/5xx twice with backoff: call with `maxRetries: 0`, or send `x-should-retry: false`
   * in `headers`, unless the retries are what the test checks.
   */
  status?: number;
  /** Message of an error response. */
  error?: string;
  /** Extra response headers, e.g. `{ "x-should-retry": "false" }`. */
  headers?: Record<string, string>;
  /** Wait before answering at all. */
  delayMs?: number;
  /** Wait between streamed SSE frames. */
  chunkDelayMs?: number;
}

export interface RecordedRequest {
  /** 0-based position among the requests this fake received. */
  index: number;
  method: string;
  path: string;
  /** Lower-cased header names. */
  headers: Record<string, string>;
  /** The parsed JSON body (`undefined` when the body was not JSON). */
  body: unknown;
  /** OpenAI Responses only: the `previous_response_id` the client sent, if any. */
  previousResponseId?: string;
}

export type FakeScript = (request: RecordedRequest) => FakeReply;

export interface FakeProviderOptions {
  protocol: FakeProtocol;
  script: FakeScript;
  /** Model name echoed in streamed chunks. Default: the request body's `model`. */
  model?: string;
}

export interface FakeProvider {
  /** What to put in a pi `Model.baseUrl`: `http://127.0.0.1:<port>/v1` (OpenAI) or without `/v1` (Anthropic). */
  baseUrl: string;
  protocol: FakeProtocol;
  /** Every request received, in order (also the ones answered with an error). */
  requests: RecordedRequest[];
  /** Ids of the Responses-API responses this fake created, in order. */
  responseIds: string[];
  /** Stops listening, destroys open connections and cancels pending waits. Idempotent. */
  close(): Promise<void>;
}

/** One server-sent event. */
export interface SseFrame {
  event?: string;
  data: string;
}

/** An error answer: HTTP status and JSON body. */
export interface FakeErrorResponse {
  status: number;
  body: unknown;
}

/** What the server needs from a protocol module. */
export interface ProtocolWriter {
  /** Path suffix the protocol posts to (`/chat/completions`, `/responses`, `/v1/messages`). */
  endpoint: string;
  /** Appended to `http://127.0.0.1:<port>` to make `baseUrl`. */
  basePath: string;
  frames(reply: FakeReply, request: RecordedRequest, ids: IdSource): SseFrame[];
  overflowError(): FakeErrorResponse;
  error(status: number, message: string): FakeErrorResponse;
}

/** Deterministic ids per fake server: `next("call")` → `call_fake_1`, `call_fake_2`, … */
export interface IdSource {
  next(prefix: string): string;
  /** Model name for chunks. */
  model(request: RecordedRequest): string;
}
