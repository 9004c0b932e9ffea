import { afterEach, describe, expect, it, vi } from "vitest";
import { createGatewayHarness } from "./support/gateway-harness.js";
import { ScriptedAgentService } from "./support/scripted-agent-service.js";
import { closed, connectWebSocket, MessageLog, webSocketUrl } from "./support/websocket-client.js";

const harness = createGatewayHarness();
afterEach(() => harness.closeAll());

const SESSION = "agent:main:main";

async function openClient(options: Parameters<typeof harness.start>[0] = {}) {
  const started = await harness.start(options);
  const socket = await connectWebSocket(webSocketUrl(started.url));
  return { ...started, socket, log: new MessageLog(socket) };
}

function slowService(): ScriptedAgentService {
  return new ScriptedAgentService({ deltas: Array.from({ length: 200 }, () => "."), delayMs: 10 });
}

describe("WebSocket runs", () => {
  it("streams { id, event } for every TurnEvent in order, then { id, result }", async () => {
    const { socket, log } = await openClient();
    socket.send(JSON.stringify({ id: "r1", type: "send", session: SESSION, text: "hi" }));
    await log.waitFor((message) => "result" in message);
    expect(
      log.messages.map((message) => (message.event as { type: string } | undefined)?.type ?? "result"),
    ).toEqual(["run-start", "text-delta", "text-delta", "text-delta", "run-end", "result"]);
    expect(log.messages.every((message) => message.id === "r1")).toBe(true);
    expect(log.messages.at(-1)).toEqual({
      id: "r1",
      result: { kind: "reply", text: "Hello there", ok: true },
    });
    socket.close();
  });

  it("aborts this connection's runs on a session when asked", async () => {
    const { socket, log, service } = await openClient({ service: slowService() });
    const started = service.nextRunStart();
    socket.send(JSON.stringify({ id: 7, type: "send", session: SESSION, text: "long" }));
    const run = await started;
    socket.send(JSON.stringify({ id: 8, type: "abort", session: SESSION }));
    expect(await log.waitFor((message) => message.id === 8)).toEqual({ id: 8, result: { aborted: 1 } });
    const result = await log.waitFor((message) => message.id === 7 && "result" in message);
    expect(result.result).toMatchObject({ ok: false, error: { aborted: true } });
    expect(run.signal?.aborted).toBe(true);
    expect(service.abortedRuns).toBe(1);
    socket.close();
  });

  it("aborts the runs of a client that disconnects", async () => {
    const { socket, service } = await openClient({ service: slowService() });
    const started = service.nextRunStart();
    socket.send(JSON.stringify({ id: "r1", type: "send", session: SESSION, text: "long" }));
    const run = await started;
    socket.close();
    await vi.waitFor(() => expect(run.signal?.aborted).toBe(true), { timeout: 2_000 });
    await vi.waitFor(() => expect(service.abortedRuns).toBe(1), { timeout: 2_000 });
  });

  it("refuses a second run under an id still in progress", async () => {
    const { socket, log, service } = await openClient({ service: slowService() });
    const started = service.nextRunStart();
    socket.send(JSON.stringify({ id: "same", type: "send", session: SESSION, text: "one" }));
    await started;
    socket.send(JSON.stringify({ id: "same", type: "send", session: SESSION, text: "two" }));
    const refusal = await log.waitFor((message) => "error" in message);
    expect(refusal).toMatchObject({ id: "same", error: { code: "duplicate_id", field: "id" } });
    expect(service.startedRuns).toHaveLength(1);
    socket.close();
  });
});

describe("WebSocket validation", () => {
  const invalid: Array<{ name: string; frame: string; expected: Record<string, unknown> }> = [
    { name: "not JSON", frame: "{nope", expected: { error: { code: "invalid_json" } } },
    { name: "not an object", frame: "[1]", expected: { error: { code: "invalid_request" } } },
    {
      name: "missing id",
      frame: JSON.stringify({ type: "send", session: SESSION, text: "hi" }),
      expected: { error: { field: "id" } },
    },
    {
      name: "unknown type",
      frame: JSON.stringify({ id: 1, type: "sned", session: SESSION }),
      expected: { id: 1, error: { field: "type" } },
    },
    {
      name: "traversal in the session",
      frame: JSON.stringify({ id: 2, type: "send", session: "../../etc/passwd", text: "hi" }),
      expected: { id: 2, error: { field: "session" } },
    },
    {
      name: "text too long",
      frame: JSON.stringify({ id: 3, type: "send", session: SESSION, text: "x".repeat(100_001) }),
      expected: { id: 3, error: { field: "text" } },
    },
    {
      name: "missing text",
      frame: JSON.stringify({ id: 4, type: "send", session: SESSION }),
      expected: { id: 4, error: { field: "text" } },
    },
    {
      name: "unknown field",
      frame: JSON.stringify({ id: 5, type: "abort", session: SESSION, text: "hi" }),
      expected: { id: 5, error: { field: "text" } },
    },
    {
      name: "unknown session",
      frame: JSON.stringify({ id: 6, type: "send", session: "agent:main:nope", text: "hi" }),
      expected: { id: 6, error: { code: "unknown_session" } },
    },
  ];

  it.each(invalid)("answers an error for a message with $name", async ({ frame, expected }) => {
    const { socket, log, service } = await openClient();
    socket.send(frame);
    expect(await log.waitFor((message) => "error" in message)).toMatchObject(expected);
    expect(service.startedRuns).toHaveLength(0);
    socket.close();
  });

  it("answers an error for a binary frame and keeps the connection", async () => {
    const { socket, log } = await openClient();
    socket.send(Buffer.from("{}"), { binary: true });
    expect(await log.waitFor((message) => "error" in message)).toMatchObject({
      error: { code: "invalid_request" },
    });
    socket.send(JSON.stringify({ id: "after", type: "send", session: SESSION, text: "hi" }));
    await log.waitFor((message) => message.id === "after" && "result" in message);
    socket.close();
  });

  it("closes the connection for a message over maxBodyBytes", async () => {
    const { socket } = await openClient({ maxBodyBytes: 1024 });
    socket.send(JSON.stringify({ id: 1, type: "send", session: SESSION, text: "x".repeat(4096) }));
    expect(await closed(socket)).toBe(1009);
  });
});

describe("WebSocket keepalive", () => {
  it("pings clients and keeps the ones that answer", async () => {
    const { socket } = await openClient({ pingIntervalMs: 20 });
    let pings = 0;
    socket.on("ping", () => {
      pings += 1;
    });
    await vi.waitFor(() => expect(pings).toBeGreaterThanOrEqual(4), { timeout: 2_000 });
    expect(socket.readyState).toBe(socket.OPEN);
    socket.close();
  });

  it("drops a client that stops answering pings", async () => {
    const { url } = await harness.start({ pingIntervalMs: 20 });
    const socket = await connectWebSocket(webSocketUrl(url), { autoPong: false });
    expect(await closed(socket)).toBe(1006);
  });
});
