/**
 * A local model with a small window (8k, as many Ollama and llama.cpp setups run), the lossless
 * plugin selected: the default reserve (20,000 tokens) is larger than the window. The host used
 * to hand the engine a budget of 1 token, so every request carried the system prompt and the
 * newest user message and nothing else, and asked for `max_tokens` 8,192 beside them.
 */
import { join } from "node:path";
import type { FakeReply, RecordedRequest } from "@clew/agent/testing";
import { SUMMARY_SYSTEM_PROMPT } from "@clew/core";
import { afterEach, describe, expect, it } from "vitest";
import { openSqliteStoreReadOnly } from "../src/store/sqlite/open-read-only.js";
import { createLosslessAgent } from "./support/agent-harness.js";

const KEY = "agent:main:main";
const WINDOW = 8_000;

let agent: Awaited<ReturnType<typeof createLosslessAgent>> | undefined;
afterEach(async () => {
  await agent?.cleanup();
  agent = undefined;
});

interface ChatBody {
  messages: Array<{ role: string; content: unknown }>;
  tools?: unknown[];
  max_tokens?: number;
  max_completion_tokens?: number;
}

const bodyOf = (request: RecordedRequest) => request.body as ChatBody;

function isSummaryCall(request: RecordedRequest): boolean {
  return JSON.stringify(bodyOf(request).messages[0]?.content ?? "").includes(
    JSON.stringify(SUMMARY_SYSTEM_PROMPT).slice(1, 60),
  );
}

function answer(request: RecordedRequest): FakeReply {
  if (isSummaryCall(request)) return { text: "## Goal\n- keep the service deploys on track" };
  return { text: `Noted. ${"The plan stands. ".repeat(10)}` };
}

/** Characters of what the request carries as text: message contents and tool schemas. */
function promptChars(body: ChatBody): number {
  const contents = body.messages.map((message) =>
    typeof message.content === "string"
      ? message.content.length
      : JSON.stringify(message.content ?? "").length,
  );
  return contents.reduce((sum, chars) => sum + chars, 0) + JSON.stringify(body.tools ?? []).length;
}

/** An agent at the 8k window after `turns` turns, each asking to check it `checks` times over. */
async function chatAt8k(turns: number, checks: number) {
  const chatting = await createLosslessAgent(answer, { contextWindow: WINDOW, maxTokens: 8_192 });
  agent = chatting;
  await chatting.service.createSession({ sessionKey: KEY });
  for (let turn = 0; turn < turns; turn++) {
    const text = `Turn ${turn}: service-${turn} deploys from branch release-${turn}. ${"Check it. ".repeat(checks)}`;
    expect(await chatting.service.sendMessage(KEY, text)).toMatchObject({ ok: true });
  }
  return chatting;
}

describe("a model with an 8k window", () => {
  it("sees the earlier turns, and is asked for no more reply than the window leaves", async () => {
    agent = await chatAt8k(12, 20);
    const chats = agent.fake.requests.filter((request) => !isSummaryCall(request)).map(bodyOf);
    expect(chats.length).toBeGreaterThanOrEqual(12);
    for (const [index, body] of chats.entries()) {
      const sent = JSON.stringify(body.messages);
      expect(sent).toContain(`Turn ${index}:`);
      // The turn before this one, raw: the fresh tail reaches the model.
      if (index > 0) expect(sent).toContain(`release-${index - 1}.`);
      const maxTokens = body.max_tokens ?? body.max_completion_tokens ?? Number.POSITIVE_INFINITY;
      expect(maxTokens).toBeLessThan(WINDOW);
      expect(maxTokens + Math.ceil(promptChars(body) / 4)).toBeLessThanOrEqual(WINDOW);
    }
  });

  it("counts the engine's own compactions in the session, as /status shows them", async () => {
    agent = await chatAt8k(16, 80);
    const store = openSqliteStoreReadOnly(join(agent.home, "agents", "main", "lossless.db"));
    try {
      const [session] = await store.listSessions();
      const reduced = async () =>
        (await store.listCompactionPasses({ sessionId: session?.sessionId ?? "", limit: 100 })).filter(
          (pass) => pass.tokensAfter < pass.tokensBefore,
        ).length;
      // Maintenance runs after each reply: wait until the count has caught up with the passes.
      let counted = -1;
      for (let wait = 0; wait < 50; wait++) {
        counted = (await agent.service.getSession(KEY)).compactionCount;
        if (counted === (await reduced()) && counted > 0) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(counted).toBeGreaterThan(0);
      expect(counted).toBe(await reduced());
      const status = await agent.service.sendMessage(KEY, "/status");
      expect(status.text).toContain(`🧹 Compactions: ${counted}`);
    } finally {
      await store.close();
    }
  });
});
