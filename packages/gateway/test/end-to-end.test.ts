import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LocalAgentService } from "@clew/agent";
import { type FakeProvider, type FakeReply, startFakeProvider } from "@clew/agent/testing";
import {
  type AgentMessage,
  type ClewConfig,
  createTokenCounter,
  isHousekeepingMessage,
  JsonlTranscriptStore,
  MemoryLogger,
} from "@clew/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Gateway, startGateway } from "../src/index.js";

const TURNS = 60;
const OVERFLOW_AT_TURN = 45;

let home: string;
let fake: FakeProvider;
let gateway: Gateway;
let service: LocalAgentService;

/** A provider that answers like a coding model: a tool call every third turn, usage from the prompt size. */
function script(request: { body: unknown; index: number }): FakeReply {
  const body = JSON.stringify(request.body);
  if (body.includes("context summarization assistant"))
    return { text: "## Goal\nKeep the project notes.\n\n## Progress\nTurns so far." };
  const turn = Number(/turn (\d+)/.exec(body.slice(body.lastIndexOf('"role":"user"')))?.[1] ?? -1);
  const lastIsToolResult = body.lastIndexOf('"role":"tool"') > body.lastIndexOf('"role":"user"');
  // Denser than chars/4, as code and JSON are: the provider sees more tokens than the estimate.
  const usage = { input: Math.ceil(body.length / 2.5), output: 40 };
  if (turn === OVERFLOW_AT_TURN && !overflowSent) {
    overflowSent = true;
    return { overflow: true };
  }
  if (turn % 3 === 0 && !lastIsToolResult) {
    return {
      toolCalls: [
        { name: "write", arguments: { path: `notes/turn-${turn}.md`, content: `note ${turn} `.repeat(200) } },
      ],
      usage,
    };
  }
  return { text: `Done with turn ${turn}. ${"detail ".repeat(150)}`, usage };
}
let overflowSent = false;

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), "clew-gateway-e2e-"));
  fake = await startFakeProvider({ protocol: "openai-completions", script });
  const config: ClewConfig = {
    models: {
      providers: {
        fake: {
          api: "openai-completions",
          baseUrl: fake.baseUrl,
          models: [{ id: "coder", contextWindow: 24_000, maxTokens: 1_000 }],
        },
      },
    },
    agents: {
      defaults: { model: "fake/coder", compaction: { reserveTokens: 4_000, keepRecentTokens: 3_000 } },
    },
  };
  service = new LocalAgentService({
    home,
    config,
    configPath: join(home, "clew.json"),
    env: {},
    logger: new MemoryLogger(),
    counter: await createTokenCounter(config),
  });
  gateway = await startGateway({ service, logger: new MemoryLogger() });
});

afterAll(async () => {
  await gateway?.close();
  await fake?.close();
  await rm(home, { recursive: true, force: true });
});

async function post(path: string, body: unknown) {
  const response = await fetch(`${gateway.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** One streamed turn over Server-Sent Events: every `event:`/`data:` frame, in order. */
async function streamTurn(session: string, text: string): Promise<Array<{ event: string; data: unknown }>> {
  const response = await fetch(`${gateway.url}/v1/sessions/${session}/messages`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "text/event-stream" },
    body: JSON.stringify({ text, stream: true }),
  });
  expect(response.headers.get("content-type")).toContain("text/event-stream");
  const frames = (await response.text()).split("\n\n").filter((frame) => frame.trim() !== "");
  return frames.map((frame) => ({
    event: /^event: (.*)$/m.exec(frame)?.[1] ?? "message",
    data: JSON.parse(/^data: (.*)$/m.exec(frame)?.[1] ?? "null"),
  }));
}

describe("gateway + fake provider + legacy engine", () => {
  it("runs a 60-turn session with tools, compacting by threshold and after an overflow", {
    timeout: 120_000,
  }, async () => {
    const created = await post("/v1/sessions", { sessionKey: "agent:main:e2e" });
    expect(created.status).toBe(201);
    const triggers: string[] = [];
    for (let turn = 0; turn < TURNS; turn++) {
      const text = `turn ${turn}: keep going ${"context ".repeat(60)}`;
      const events = await streamTurn("agent:main:e2e", text);
      const result = events.find((event) => event.event === "result")?.data as { ok: boolean; text: string };
      expect(result?.ok, `turn ${turn}: ${result?.text}`).toBe(true);
      for (const event of events) {
        const data = event.data as { type?: string; trigger?: string; compacted?: boolean };
        if (data.type === "compaction-end" && data.compacted && data.trigger) triggers.push(data.trigger);
      }
    }
    expect(triggers).toContain("threshold");
    expect(triggers).toContain("overflow");
    expect(overflowSent).toBe(true);

    const status = await post("/v1/sessions/agent:main:e2e/commands", { command: "/status" });
    expect(status.body.text).toContain("🧹 Compactions:");
    const compactions = Number(/Compactions: (\d+)/.exec(String(status.body.text))?.[1]);
    expect(compactions).toBeGreaterThanOrEqual(2);
    const context = await post("/v1/sessions/agent:main:e2e/commands", { command: "/context list" });
    expect(context.body.text).toContain("System prompt (run):");

    const store = new JsonlTranscriptStore({ home });
    const sessionId = (await service.getSession("agent:main:e2e")).sessionId;
    const entries = (await store.openReadOnly("main", sessionId)).entries();
    const messages = entries
      .filter((entry) => entry.type === "message")
      .map((entry) => entry.message as { role: string; content: unknown });
    // The user's turns, and the memory flush's silent turns before compactions (its line is at
    // 24,000 − 4,000 − 4,000 tokens: the reserve the compaction uses, less the soft threshold).
    const flushes = messages.filter(
      (message) => message.role === "user" && isHousekeepingMessage(message as AgentMessage),
    );
    expect(flushes.length).toBeGreaterThanOrEqual(1);
    expect(flushes.length).toBeLessThanOrEqual(compactions + 1);
    expect(messages.filter((message) => message.role === "user")).toHaveLength(TURNS + flushes.length);
    expect(messages.filter((message) => message.role === "toolResult")).toHaveLength(TURNS / 3);
    expect(entries.filter((entry) => entry.type === "compaction")).toHaveLength(compactions);
    expect(compactions).toBe(triggers.length);
  });
});
