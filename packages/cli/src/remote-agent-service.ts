import type {
  AgentService,
  SendMessageOptions,
  SendMessageResult,
  SessionDetail,
  SessionSummary,
  TurnEvent,
} from "@clew/agent";
import { ClewError, UnknownSessionError } from "@clew/core";

/** A gateway refused or failed a request; carries its status and error code. */
export class GatewayRequestError extends ClewError {
  readonly status: number;

  constructor(message: string, status: number, code: string) {
    super(message, { code, category: status >= 500 ? "system" : "user" });
    this.status = status;
  }
}

/** `AgentService` over a running gateway's HTTP API (`clew chat --url`). */
export class RemoteAgentService implements AgentService {
  constructor(
    private readonly baseUrl: string,
    private readonly token?: string,
  ) {}

  async listSessions(options: { agentId?: string } = {}): Promise<SessionSummary[]> {
    const query = options.agentId === undefined ? "" : `?agent=${encodeURIComponent(options.agentId)}`;
    return ((await this.request("GET", `/v1/sessions${query}`)) as { sessions: SessionSummary[] }).sessions;
  }

  async createSession(options: { agentId?: string; sessionKey?: string } = {}): Promise<SessionSummary> {
    return (await this.request("POST", "/v1/sessions", options)) as SessionSummary;
  }

  async getSession(reference: string): Promise<SessionDetail> {
    return (await this.request("GET", `/v1/sessions/${encodeURIComponent(reference)}`)) as SessionDetail;
  }

  async deleteSession(reference: string): Promise<void> {
    await this.request("DELETE", `/v1/sessions/${encodeURIComponent(reference)}`);
  }

  async status(reference?: string): Promise<{ text: string; data: unknown }> {
    const query = reference === undefined ? "" : `?session=${encodeURIComponent(reference)}`;
    return (await this.request("GET", `/v1/status${query}`)) as { text: string; data: unknown };
  }

  /** Streams the run's events over Server-Sent Events and resolves with the final result. */
  async sendMessage(
    reference: string,
    text: string,
    options: SendMessageOptions = {},
  ): Promise<SendMessageResult> {
    const response = await fetch(`${this.baseUrl}/v1/sessions/${encodeURIComponent(reference)}/messages`, {
      method: "POST",
      headers: { ...this.headers(), "content-type": "application/json", accept: "text/event-stream" },
      body: JSON.stringify({ text, stream: true }),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
    if (!response.ok || response.body === null) await this.fail(response, reference);
    let result: SendMessageResult | undefined;
    for await (const { event, data } of serverSentEvents(response.body as ReadableStream<Uint8Array>)) {
      if (event === "result") result = data as SendMessageResult;
      else if (event === "error")
        throw new GatewayRequestError(String((data as { message?: unknown }).message), 500, "gateway_error");
      else options.onEvent?.(data as TurnEvent);
    }
    if (result === undefined)
      throw new GatewayRequestError(
        "The gateway closed the stream without a result",
        502,
        "gateway_stream_ended",
      );
    return result;
  }

  async close(): Promise<void> {}

  private headers(): Record<string, string> {
    return this.token === undefined ? {} : { authorization: `Bearer ${this.token}` };
  }

  private async request(method: string, path: string, body?: unknown): Promise<unknown> {
    const response = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: { ...this.headers(), ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (!response.ok) await this.fail(response, path);
    return response.status === 204 ? undefined : response.json();
  }

  private async fail(response: Response, reference: string): Promise<never> {
    const body = (await response.json().catch(() => ({}))) as { error?: { code?: string; message?: string } };
    if (response.status === 404 && body.error?.code === "unknown_session")
      throw new UnknownSessionError("main", reference);
    throw new GatewayRequestError(
      `Gateway answered ${response.status}: ${body.error?.message ?? response.statusText}`,
      response.status,
      body.error?.code ?? "gateway_error",
    );
  }
}

/** Parses a Server-Sent Events body into `{ event, data }` records (data is JSON). */
async function* serverSentEvents(
  body: ReadableStream<Uint8Array>,
): AsyncGenerator<{ event: string; data: unknown }> {
  const decoder = new TextDecoder();
  let buffer = "";
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let boundary = buffer.indexOf("\n\n");
    while (boundary >= 0) {
      const frame = buffer.slice(0, boundary);
      buffer = buffer.slice(boundary + 2);
      const event = /^event: ?(.*)$/m.exec(frame)?.[1] ?? "message";
      const data = frame
        .split("\n")
        .filter((line) => line.startsWith("data:"))
        .map((line) => line.slice(5).trimStart())
        .join("\n");
      if (data.length > 0) yield { event, data: JSON.parse(data) };
      boundary = buffer.indexOf("\n\n");
    }
  }
}
