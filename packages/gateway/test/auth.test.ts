import { GatewayConfigError, MemoryLogger } from "@clew/core";
import { afterEach, describe, expect, it } from "vitest";
import { isLoopbackHost, startGateway } from "../src/index.js";
import { createGatewayHarness } from "./support/gateway-harness.js";
import { rawRequest } from "./support/raw-http.js";
import { ScriptedAgentService } from "./support/scripted-agent-service.js";
import { upgradeStatus, webSocketUrl } from "./support/websocket-client.js";

const TOKEN = "s3cret-token-value";
const harness = createGatewayHarness();
afterEach(() => harness.closeAll());

describe("binding", () => {
  it.each(["0.0.0.0", "::", "192.168.1.20", "example.com", "128.0.0.1"])(
    "refuses to bind %s without a token, before binding anything",
    async (host) => {
      const service = new ScriptedAgentService();
      const attempt = startGateway({ service, logger: new MemoryLogger(), host });
      await expect(attempt).rejects.toBeInstanceOf(GatewayConfigError);
      await expect(attempt).rejects.toMatchObject({ option: "host", code: "gateway_config_invalid" });
    },
  );

  it("refuses an empty token", async () => {
    const attempt = harness.start({ token: "  " });
    await expect(attempt).rejects.toMatchObject({ option: "token" });
  });

  it("refuses a port outside 0..65535", async () => {
    await expect(harness.start({ port: 70_000 })).rejects.toMatchObject({ option: "port" });
  });

  it("counts localhost, 127.0.0.0/8 and ::1 as loopback and nothing else", () => {
    for (const host of [
      "127.0.0.1",
      "127.8.9.10",
      "::1",
      "[::1]",
      "localhost",
      "LocalHost",
      "::ffff:127.0.0.1",
    ]) {
      expect(isLoopbackHost(host), host).toBe(true);
    }
    for (const host of [
      "0.0.0.0",
      "::",
      "128.0.0.1",
      "10.0.0.1",
      "localhost.example.com",
      "",
      "::ffff:10.0.0.1",
    ]) {
      expect(isLoopbackHost(host), host).toBe(false);
    }
  });

  it("binds localhost without a token and reports the chosen port", async () => {
    const { gateway } = await harness.start({ host: "localhost" });
    expect(gateway.port).toBeGreaterThan(0);
    expect(gateway.url).toBe(`http://localhost:${gateway.port}`);
  });
});

describe("bearer token", () => {
  it("answers 401 JSON without a token, with a wrong one, or with the token in the query", async () => {
    const { url } = await harness.start({ token: TOKEN });
    const attempts = [
      await fetch(`${url}/v1/health`),
      await fetch(`${url}/v1/health`, { headers: { authorization: `Bearer ${TOKEN}x` } }),
      await fetch(`${url}/v1/health`, { headers: { authorization: `Basic ${TOKEN}` } }),
      await fetch(`${url}/v1/sessions?token=${TOKEN}`),
    ];
    for (const response of attempts) {
      expect(response.status).toBe(401);
      expect(response.headers.get("content-type")).toMatch(/^application\/json/);
      expect(response.headers.get("www-authenticate")).toMatch(/^Bearer/);
      expect(await response.json()).toMatchObject({ error: { code: "unauthorized" } });
    }
  });

  it("serves requests carrying the right bearer token", async () => {
    const { url } = await harness.start({ token: TOKEN });
    const response = await fetch(`${url}/v1/sessions`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ sessions: [{ sessionKey: "agent:main:main" }] });
  });

  it("checks the token before routing, so unknown routes do not leak", async () => {
    const { url } = await harness.start({ token: TOKEN });
    expect((await fetch(`${url}/v1/nothing-here`)).status).toBe(401);
  });

  it("checks WebSocket upgrades the same way, accepting the header or ?token=", async () => {
    const { url } = await harness.start({ token: TOKEN });
    expect(await upgradeStatus(webSocketUrl(url))).toBe(401);
    expect(await upgradeStatus(webSocketUrl(url, "?token=wrong"))).toBe(401);
    expect(await upgradeStatus(webSocketUrl(url, `?token=${TOKEN}`))).toBe(101);
    expect(await upgradeStatus(webSocketUrl(url), { headers: { authorization: `Bearer ${TOKEN}` } })).toBe(
      101,
    );
  });

  it("never writes the token into the logs", async () => {
    const { url, logger } = await harness.start({ token: TOKEN });
    await fetch(`${url}/v1/health`, { headers: { authorization: `Bearer ${TOKEN}` } });
    await upgradeStatus(webSocketUrl(url, `?token=${TOKEN}`));
    await upgradeStatus(webSocketUrl(url, `?token=${TOKEN}-wrong`));
    expect(logger.records.length).toBeGreaterThan(2);
    expect(JSON.stringify(logger.records)).not.toContain(TOKEN);
  });
});

describe("without a token", () => {
  it("refuses requests whose Host is not loopback (DNS rebinding)", async () => {
    const { url } = await harness.start();
    const response = await rawRequest(url, { path: "/v1/health", headers: { host: "attacker.example:80" } });
    expect(response.status).toBe(403);
    expect(response.json()).toMatchObject({ error: { code: "forbidden_host" } });
  });

  it("refuses WebSocket upgrades from a web page origin but accepts ones without an origin", async () => {
    const { url } = await harness.start();
    expect(await upgradeStatus(webSocketUrl(url), { origin: "https://evil.example" })).toBe(403);
    expect(await upgradeStatus(webSocketUrl(url))).toBe(101);
  });
});

describe("listen failures", () => {
  it("rejects with the system error when the port is taken", async () => {
    const { gateway } = await harness.start();
    await expect(harness.start({ port: gateway.port })).rejects.toMatchObject({ code: "EADDRINUSE" });
  });
});
