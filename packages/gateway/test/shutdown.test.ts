import { createServer } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createGatewayHarness, parseEventStream, postJson } from "./support/gateway-harness.js";
import { ScriptedAgentService } from "./support/scripted-agent-service.js";
import { closed, connectWebSocket, MessageLog, webSocketUrl } from "./support/websocket-client.js";

const harness = createGatewayHarness();
afterEach(() => harness.closeAll());

const SESSION = "agent:main:main";

/** True when a fresh server can bind the port, i.e. the gateway let go of it. */
function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once("error", () => resolve(false));
    probe.listen(port, "127.0.0.1", () => probe.close(() => resolve(true)));
  });
}

function streamMessage(url: string) {
  return postJson(`${url}/v1/sessions/${SESSION}/messages`, { text: "hi", stream: true }).then(
    async (response) => parseEventStream(await response.text()),
  );
}

describe("close", () => {
  it("lets a run finish within the grace period, then frees the port and closes the service once", async () => {
    const service = new ScriptedAgentService({ deltas: ["a", "b", "c", "d"], delayMs: 20 });
    const { gateway, url } = await harness.start({ service, shutdownGraceMs: 5_000 });
    const started = service.nextRunStart();
    const frames = streamMessage(url);
    await started;
    await gateway.close();
    expect((await frames).at(-1)).toEqual({
      event: "result",
      data: { kind: "reply", text: "abcd", ok: true },
    });
    expect(service.finishedRuns).toBe(1);
    expect(service.closeCalls).toBe(1);
    expect(await portIsFree(gateway.port)).toBe(true);
  });

  it("aborts runs still going after the grace period", async () => {
    const service = new ScriptedAgentService({ deltas: Array.from({ length: 500 }, () => "."), delayMs: 10 });
    const { gateway, url } = await harness.start({ service, shutdownGraceMs: 50 });
    const started = service.nextRunStart();
    const frames = streamMessage(url);
    const run = await started;
    const began = Date.now();
    await gateway.close();
    expect(Date.now() - began).toBeLessThan(3_000);
    expect(run.signal?.aborted).toBe(true);
    expect((await frames).at(-1)).toMatchObject({
      event: "result",
      data: { ok: false, error: { aborted: true } },
    });
    expect(service.abortedRuns).toBe(1);
    expect(service.closeCalls).toBe(1);
    expect(await portIsFree(gateway.port)).toBe(true);
  });

  it("is idempotent: every call returns the same promise and the service closes once", async () => {
    const { gateway, service } = await harness.start();
    const first = gateway.close();
    const second = gateway.close();
    expect(second).toBe(first);
    await Promise.all([first, second, gateway.close()]);
    expect(service.closeCalls).toBe(1);
  });

  it("closes WebSockets with 1001 and aborts their runs", async () => {
    const service = new ScriptedAgentService({ deltas: Array.from({ length: 500 }, () => "."), delayMs: 10 });
    const { gateway, url } = await harness.start({ service, shutdownGraceMs: 50 });
    const socket = await connectWebSocket(webSocketUrl(url));
    const log = new MessageLog(socket);
    const started = service.nextRunStart();
    socket.send(JSON.stringify({ id: "r1", type: "send", session: SESSION, text: "long" }));
    const run = await started;
    const socketClosed = closed(socket);
    await gateway.close();
    expect(await socketClosed).toBe(1001);
    expect(run.signal?.aborted).toBe(true);
    expect(log.messages.at(-1)).toMatchObject({ id: "r1", result: { ok: false, error: { aborted: true } } });
    expect(service.closeCalls).toBe(1);
  });

  it("refuses new runs while waiting for the ones in progress", async () => {
    const service = new ScriptedAgentService({ deltas: Array.from({ length: 500 }, () => "."), delayMs: 10 });
    const { gateway, url } = await harness.start({ service, shutdownGraceMs: 100 });
    const socket = await connectWebSocket(webSocketUrl(url));
    const log = new MessageLog(socket);
    const started = service.nextRunStart();
    socket.send(JSON.stringify({ id: "r1", type: "send", session: SESSION, text: "long" }));
    await started;
    const closing = gateway.close();
    socket.send(JSON.stringify({ id: "r2", type: "send", session: SESSION, text: "another" }));
    expect(await log.waitFor((message) => message.id === "r2")).toMatchObject({
      error: { code: "shutting_down" },
    });
    await closing;
    expect(service.startedRuns).toHaveLength(1);
  });

  it("refuses new connections once closed", async () => {
    const { gateway, url } = await harness.start();
    await gateway.close();
    await expect(fetch(`${url}/v1/health`)).rejects.toThrow();
  });
});
