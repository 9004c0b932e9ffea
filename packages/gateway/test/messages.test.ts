import { afterEach, describe, expect, it, vi } from "vitest";
import { createGatewayHarness, parseEventStream, postJson } from "./support/gateway-harness.js";
import { ScriptedAgentService } from "./support/scripted-agent-service.js";

const harness = createGatewayHarness();
afterEach(() => harness.closeAll());

const SESSION = "agent:main:main";

describe("sessions and status", () => {
  it("lists, creates, shows and deletes sessions", async () => {
    const { url } = await harness.start();
    const created = await postJson(`${url}/v1/sessions`, { agentId: "ops", sessionKey: "agent:ops:night" });
    expect(created.status).toBe(201);
    expect(await created.json()).toMatchObject({ sessionKey: "agent:ops:night", agentId: "ops" });

    const listed = await (await fetch(`${url}/v1/sessions?agent=ops`)).json();
    expect(listed).toEqual({ sessions: [expect.objectContaining({ sessionKey: "agent:ops:night" })] });

    const detail = await fetch(`${url}/v1/sessions/agent:ops:night`);
    expect(await detail.json()).toMatchObject({ sessionKey: "agent:ops:night", messages: [] });

    const deleted = await fetch(`${url}/v1/sessions/agent:ops:night`, { method: "DELETE" });
    expect(deleted.status).toBe(204);
    expect(await deleted.text()).toBe("");
    expect((await fetch(`${url}/v1/sessions/agent:ops:night`)).status).toBe(404);
  });

  it("creates a session from a POST without a body", async () => {
    const { url } = await harness.start();
    const response = await fetch(`${url}/v1/sessions`, { method: "POST" });
    expect(response.status).toBe(201);
  });

  it("reports health and status, for the agent or one session", async () => {
    const { url } = await harness.start();
    expect(await (await fetch(`${url}/v1/health`)).json()).toEqual({ ok: true });
    expect(await (await fetch(`${url}/v1/status`)).json()).toEqual({
      text: "agent ok",
      data: { sessions: 1 },
    });
    const session = await (await fetch(`${url}/v1/status?session=${SESSION}`)).json();
    expect(session).toMatchObject({ text: `session ${SESSION}`, data: { sessionKey: SESSION } });
  });
});

describe("messages", () => {
  it("answers with the SendMessageResult as JSON when not streaming", async () => {
    const { url, service } = await harness.start();
    const response = await postJson(`${url}/v1/sessions/${SESSION}/messages`, { text: "hi" });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await response.json()).toEqual({ kind: "reply", text: "Hello there", ok: true });
    expect(service.startedRuns.map((run) => run.text)).toEqual(["hi"]);
  });

  it("streams every TurnEvent in order as SSE, then the result", async () => {
    const { url } = await harness.start();
    const response = await postJson(`${url}/v1/sessions/${SESSION}/messages`, { text: "hi", stream: true });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const frames = parseEventStream(await response.text());
    expect(frames.map((frame) => frame.event)).toEqual([
      "run-start",
      "text-delta",
      "text-delta",
      "text-delta",
      "run-end",
      "result",
    ]);
    const deltas = frames.filter((frame) => frame.event === "text-delta").map((frame) => frame.data);
    expect(deltas).toEqual([
      { type: "text-delta", delta: "Hel" },
      { type: "text-delta", delta: "lo" },
      { type: "text-delta", delta: " there" },
    ]);
    expect(frames.at(-1)?.data).toEqual({ kind: "reply", text: "Hello there", ok: true });
  });

  it("streams when the client asks for text/event-stream", async () => {
    const { url } = await harness.start();
    const response = await postJson(
      `${url}/v1/sessions/${SESSION}/messages`,
      { text: "hi" },
      { accept: "text/event-stream" },
    );
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(parseEventStream(await response.text()).at(-1)?.event).toBe("result");
  });

  it("runs commands through sendMessage with the command as text", async () => {
    const { url, service } = await harness.start();
    const response = await postJson(`${url}/v1/sessions/${SESSION}/commands`, { command: "/status" });
    expect(await response.json()).toEqual({ kind: "command", text: "ran /status", ok: true });
    expect(service.referencesSeen).toEqual([SESSION]);
    const streamed = await postJson(`${url}/v1/sessions/${SESSION}/commands`, {
      command: "/new",
      stream: true,
    });
    expect(parseEventStream(await streamed.text())).toEqual([
      { event: "result", data: { kind: "command", text: "ran /new", ok: true } },
    ]);
  });

  it.each([true, false])("aborts the run when the client disconnects (stream: %s)", async (stream) => {
    const service = new ScriptedAgentService({ deltas: Array.from({ length: 200 }, () => "."), delayMs: 10 });
    const { url, logger } = await harness.start({ service });
    const client = new AbortController();
    const started = service.nextRunStart();
    const request = fetch(`${url}/v1/sessions/${SESSION}/messages`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ text: "long", stream }),
      signal: client.signal,
    });
    const run = await started;
    client.abort();
    await request.catch(() => undefined);
    await vi.waitFor(() => expect(run.signal?.aborted).toBe(true), { timeout: 2_000 });
    await vi.waitFor(() => expect(service.abortedRuns).toBe(1), { timeout: 2_000 });
    expect(service.finishedRuns).toBe(0);
    await vi.waitFor(() =>
      expect(logger.records.find((record) => record.message === "gateway request")?.fields).toMatchObject({
        aborted: true,
      }),
    );
  });

  it("logs one line per request with method, path, status and duration, never the message", async () => {
    const { url, logger } = await harness.start();
    await postJson(`${url}/v1/sessions/${SESSION}/messages`, { text: "very private words" });
    await fetch(`${url}/v1/health`);
    const lines = logger.records.filter((record) => record.message === "gateway request");
    expect(lines.map((line) => line.fields)).toEqual([
      { method: "POST", path: `/v1/sessions/${SESSION}/messages`, status: 200, ms: expect.any(Number) },
      { method: "GET", path: "/v1/health", status: 200, ms: expect.any(Number) },
    ]);
    expect(JSON.stringify(logger.records)).not.toContain("very private words");
  });
});
