import { request as httpRequest } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { createGatewayHarness, postJson } from "./support/gateway-harness.js";
import { rawRequest } from "./support/raw-http.js";

const harness = createGatewayHarness();
afterEach(() => harness.closeAll());

const SESSION = "agent:main:main";

describe("field validation", () => {
  const cases: Array<{ name: string; path: string; body: unknown; field: string }> = [
    { name: "missing text", path: `/v1/sessions/${SESSION}/messages`, body: {}, field: "text" },
    { name: "text not a string", path: `/v1/sessions/${SESSION}/messages`, body: { text: 5 }, field: "text" },
    { name: "empty text", path: `/v1/sessions/${SESSION}/messages`, body: { text: "" }, field: "text" },
    {
      name: "text over 100k characters",
      path: `/v1/sessions/${SESSION}/messages`,
      body: { text: "x".repeat(100_001) },
      field: "text",
    },
    {
      name: "stream not a boolean",
      path: `/v1/sessions/${SESSION}/messages`,
      body: { text: "hi", stream: "yes" },
      field: "stream",
    },
    {
      name: "unknown field",
      path: `/v1/sessions/${SESSION}/messages`,
      body: { text: "hi", txet: "typo" },
      field: "txet",
    },
    { name: "body an array", path: `/v1/sessions/${SESSION}/messages`, body: ["hi"], field: "body" },
    { name: "missing command", path: `/v1/sessions/${SESSION}/commands`, body: {}, field: "command" },
    {
      name: "command without slash",
      path: `/v1/sessions/${SESSION}/commands`,
      body: { command: "status" },
      field: "command",
    },
    { name: "agentId not a string", path: "/v1/sessions", body: { agentId: 5 }, field: "agentId" },
    { name: "agentId with a slash", path: "/v1/sessions", body: { agentId: "a/b" }, field: "agentId" },
    { name: "sessionKey traversal", path: "/v1/sessions", body: { sessionKey: "../x" }, field: "sessionKey" },
  ];

  it.each(cases)("answers 400 naming the field for $name", async ({ path, body, field }) => {
    const { url, service } = await harness.start();
    const response = await postJson(`${url}${path}`, body);
    expect(response.status).toBe(400);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await response.json()).toMatchObject({ error: { field } });
    expect(service.startedRuns).toHaveLength(0);
  });

  it("answers 400 naming the body for malformed JSON", async () => {
    const { url } = await harness.start();
    const response = await fetch(`${url}/v1/sessions/${SESSION}/messages`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"text": "unterminated',
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { code: "invalid_json", field: "body" } });
  });

  it("answers 400 naming the query parameter for a bad agent or session filter", async () => {
    const { url } = await harness.start();
    const agent = await fetch(`${url}/v1/sessions?agent=${encodeURIComponent("../x")}`);
    expect(agent.status).toBe(400);
    expect(await agent.json()).toMatchObject({ error: { field: "agent" } });
    const status = await fetch(`${url}/v1/status?session=${encodeURIComponent("a/b")}`);
    expect(status.status).toBe(400);
    expect(await status.json()).toMatchObject({ error: { field: "session" } });
  });
});

describe("session references", () => {
  const traversals = [
    "..%2F..%2Fetc%2Fpasswd",
    "..%2f..%2fetc%2fpasswd",
    "%2e%2e%2f%2e%2e%2fetc%2fpasswd",
    "%2E%2E",
    "..",
    "..%252F..%252Fetc%252Fpasswd",
    "..%5C..%5Cwindows%5Cwin.ini",
    "a..b",
    "foo%00bar",
    "%c0%ae%c0%ae%c0%af",
    "%",
    "x".repeat(201),
  ];

  it.each(traversals)("answers 400 for %s and never calls the service", async (reference) => {
    const { url, service } = await harness.start();
    for (const [method, suffix] of [
      ["GET", ""],
      ["DELETE", ""],
      ["POST", "/messages"],
    ] as const) {
      const response = await rawRequest(url, {
        method,
        path: `/v1/sessions/${reference}${suffix}`,
        headers: { "content-type": "application/json" },
        body: method === "POST" ? JSON.stringify({ text: "hi" }) : undefined,
      });
      expect(response.status, `${method} ${reference}`).toBe(400);
      expect(response.json()).toMatchObject({ error: { field: "session" } });
    }
    expect(service.referencesSeen).toEqual([]);
  });

  it("answers 400 for dot segments after a valid reference", async () => {
    const { url, service } = await harness.start();
    const response = await rawRequest(url, { path: `/v1/sessions/${SESSION}/../../etc/passwd` });
    expect(response.status).toBe(400);
    expect(response.json()).toMatchObject({ error: { field: "path" } });
    expect(service.referencesSeen).toEqual([]);
  });

  it("answers 404 with code unknown_session when the service does not know the session", async () => {
    const { url } = await harness.start();
    for (const response of [
      await fetch(`${url}/v1/sessions/agent:main:nope`),
      await fetch(`${url}/v1/sessions/agent:main:nope`, { method: "DELETE" }),
      await postJson(`${url}/v1/sessions/agent:main:nope/messages`, { text: "hi" }),
      await postJson(`${url}/v1/sessions/agent:main:nope/messages`, { text: "hi", stream: true }),
      await fetch(`${url}/v1/status?session=agent:main:nope`),
    ]) {
      expect(response.status).toBe(404);
      expect(response.headers.get("content-type")).toMatch(/^application\/json/);
      expect(await response.json()).toMatchObject({ error: { code: "unknown_session" } });
    }
  });
});

describe("routes and media types", () => {
  it("answers 404 for unknown routes", async () => {
    const { url } = await harness.start();
    for (const path of [
      "/",
      "/v1",
      "/v2/health",
      "/v1/nope",
      "/v1/health/extra",
      `/v1/sessions/${SESSION}/other`,
    ]) {
      const response = await fetch(`${url}${path}`);
      expect(response.status, path).toBe(404);
      expect(await response.json()).toMatchObject({ error: { code: "not_found" } });
    }
  });

  it("answers 405 with the allowed methods for a wrong method", async () => {
    const { url } = await harness.start();
    const put = await fetch(`${url}/v1/health`, { method: "PUT" });
    expect(put.status).toBe(405);
    expect(put.headers.get("allow")).toBe("GET");
    const get = await fetch(`${url}/v1/sessions/${SESSION}/messages`);
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST");
    expect(await get.json()).toMatchObject({ error: { code: "method_not_allowed" } });
  });

  it("answers 415 for a POST body that is not JSON", async () => {
    const { url, service } = await harness.start();
    for (const contentType of ["text/plain", "application/x-www-form-urlencoded", "application/jsonx"]) {
      const response = await fetch(`${url}/v1/sessions/${SESSION}/messages`, {
        method: "POST",
        headers: { "content-type": contentType },
        body: JSON.stringify({ text: "hi" }),
      });
      expect(response.status, contentType).toBe(415);
      expect(await response.json()).toMatchObject({ error: { code: "unsupported_media_type" } });
    }
    expect(service.startedRuns).toHaveLength(0);
  });

  it("accepts a JSON content type with a charset", async () => {
    const { url } = await harness.start();
    const response = await postJson(
      `${url}/v1/sessions`,
      {},
      { "content-type": "application/json; charset=utf-8" },
    );
    expect(response.status).toBe(201);
  });

  it("answers 426 for a plain GET of the WebSocket route", async () => {
    const { url } = await harness.start();
    expect((await fetch(`${url}/v1/ws`)).status).toBe(426);
  });
});

describe("body size", () => {
  const twoMebibytes = JSON.stringify({ text: "x".repeat(2 * 1024 * 1024) });

  it("answers 413 for a declared 2 MiB body without running anything", async () => {
    const { url, service } = await harness.start();
    const response = await fetch(`${url}/v1/sessions/${SESSION}/messages`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: twoMebibytes,
    });
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ error: { code: "payload_too_large" } });
    expect(service.startedRuns).toHaveLength(0);
  });

  it("answers 413 for a chunked upload as soon as it passes the limit", async () => {
    const { url, service } = await harness.start({ maxBodyBytes: 64 * 1024 });
    const { port } = new URL(url);
    const status = await new Promise<number>((resolve, reject) => {
      const request = httpRequest(
        {
          host: "127.0.0.1",
          port,
          method: "POST",
          path: `/v1/sessions/${SESSION}/messages`,
          headers: { "content-type": "application/json", "transfer-encoding": "chunked" },
        },
        (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
          request.destroy();
        },
      );
      request.on("error", reject);
      // Writes 2 MiB in 16 KiB chunks, stopping once the answer has arrived.
      const chunk = Buffer.alloc(16 * 1024, "x");
      let written = 0;
      const writeMore = () => {
        while (written < 2 * 1024 * 1024 && !request.destroyed) {
          written += chunk.length;
          if (!request.write(chunk)) {
            request.once("drain", writeMore);
            return;
          }
        }
        if (!request.destroyed) request.end();
      };
      writeMore();
    });
    expect(status).toBe(413);
    expect(service.startedRuns).toHaveLength(0);
  });
});
