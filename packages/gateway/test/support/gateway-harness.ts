/** Starts real gateways on 127.0.0.1 for a test file and closes them all afterwards. */
import { MemoryLogger } from "@clew/core";
import { type Gateway, type GatewayOptions, startGateway } from "../../src/index.js";
import { ScriptedAgentService } from "./scripted-agent-service.js";

export interface TestGateway {
  gateway: Gateway;
  service: ScriptedAgentService;
  logger: MemoryLogger;
  url: string;
}

export function createGatewayHarness() {
  const started: Gateway[] = [];
  return {
    async start(
      options: Partial<GatewayOptions> & { service?: ScriptedAgentService } = {},
    ): Promise<TestGateway> {
      const service = options.service ?? new ScriptedAgentService();
      const logger = new MemoryLogger();
      const gateway = await startGateway({ logger, ...options, service });
      started.push(gateway);
      return { gateway, service, logger, url: gateway.url };
    },
    async closeAll(): Promise<void> {
      await Promise.all(started.splice(0).map((gateway) => gateway.close()));
    },
  };
}

/** POSTs JSON with the right content type. */
export function postJson(url: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
}

/** Parses a Server-Sent Events body into `{ event, data }` frames. */
export function parseEventStream(text: string): Array<{ event: string; data: unknown }> {
  return text
    .split("\n\n")
    .filter((frame) => frame.trim() !== "")
    .map((frame) => {
      const lines = frame.split("\n");
      const event = lines.find((line) => line.startsWith("event: "))?.slice(7) ?? "";
      const data = lines.find((line) => line.startsWith("data: "))?.slice(6) ?? "null";
      return { event, data: JSON.parse(data) };
    });
}
