/**
 * The plugin as a user installs it summarizes with the host's model: a real agent, the lossless
 * plugin loaded as the CLI loads it, and a fake provider speaking the OpenAI protocol that answers
 * the chat and, for requests carrying the summary system prompt, a summary.
 */
import { join } from "node:path";
import type { FakeReply, RecordedRequest } from "@clew/agent/testing";
import { SUMMARY_SYSTEM_PROMPT } from "@clew/core";
import { afterEach, describe, expect, it } from "vitest";
import { openSqliteStoreReadOnly } from "../src/store/sqlite/open-read-only.js";
import { createLosslessAgent } from "./support/agent-harness.js";

const KEY = "agent:main:main";

let agent: Awaited<ReturnType<typeof createLosslessAgent>> | undefined;
afterEach(async () => {
  await agent?.cleanup();
  agent = undefined;
});

function messagesOf(request: RecordedRequest): Array<{ role: string; content: unknown }> {
  return (request.body as { messages?: Array<{ role: string; content: unknown }> }).messages ?? [];
}

function isSummaryCall(request: RecordedRequest): boolean {
  const system = messagesOf(request).find((message) => message.role === "system");
  return JSON.stringify(system?.content ?? "").includes(JSON.stringify(SUMMARY_SYSTEM_PROMPT).slice(1, 60));
}

function answer(request: RecordedRequest): FakeReply {
  if (isSummaryCall(request)) {
    return {
      text: "## Goal\n- keep the deploys of the five services on track\n\n## Progress\n- settings reviewed",
    };
  }
  return { text: `Noted. ${"The plan stands. ".repeat(20)}` };
}

async function chat(turns: number, pluginConfig?: Record<string, unknown>) {
  agent = await createLosslessAgent(answer, {
    contextWindow: 16_000,
    ...(pluginConfig === undefined ? {} : { pluginConfig }),
  });
  await agent.service.createSession({ sessionKey: KEY });
  for (let turn = 0; turn < turns; turn++) {
    const text = `Turn ${turn}: the deploy of service-${turn % 5} needs ${"a careful look at its settings ".repeat(30)}`;
    expect(await agent.service.sendMessage(KEY, text)).toMatchObject({ ok: true });
  }
  const store = openSqliteStoreReadOnly(join(agent.home, "agents", "main", "lossless.db"));
  try {
    const [session] = await store.listSessions();
    const sessionId = session?.sessionId ?? "";
    // Background maintenance may still be calling the model: wait until the ledger and the
    // provider agree and nothing changed for two reads 100 ms apart.
    const sent = () => agent?.fake.requests.filter(isSummaryCall).length ?? 0;
    let settled = { ledger: -1, sent: -2 };
    for (let wait = 0; wait < 100; wait++) {
      const now = { ledger: (await store.summarySpend(sessionId, 0)).calls, sent: sent() };
      if (now.ledger === now.sent && now.ledger === settled.ledger && now.sent === settled.sent) break;
      settled = now;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const view = await store.readContextView(sessionId);
    const ids = view.items.flatMap((item) => (item.ref.kind === "summary" ? [item.ref.summaryId] : []));
    return {
      summaryCalls: settled.sent,
      summaries: await store.readSummaries(sessionId, ids),
      spend: await store.summarySpend(sessionId, 0),
      passes: await store.listCompactionPasses({ sessionId, limit: 100 }),
    };
  } finally {
    await store.close();
  }
}

describe("summaries through the host's model", () => {
  it("are written by the agent's model, metered against the spend budget", async () => {
    const { summaries, spend, passes, summaryCalls } = await chat(24);
    expect(summaries.length).toBeGreaterThan(0);
    expect(summaries.every((summary) => summary.summarizer === "model:fake/fake-model")).toBe(true);
    expect(
      summaries.some((summary) => summary.content.includes("keep the deploys of the five services")),
    ).toBe(true);
    expect(summaryCalls).toBeGreaterThan(0);
    // Every model call of the summarizer is on the ledger, with the tokens it took.
    expect(spend.calls).toBe(summaryCalls);
    expect(spend.spentTokens).toBeGreaterThan(0);
    expect(passes.every((pass) => pass.summarizer === "model:fake/fake-model")).toBe(true);
    // No pass fell back to a stand-in: every summary it wrote was the model's.
    expect(passes.every((pass) => pass.level !== "fallback")).toBe(true);
  });

  it("are written by rule in the model's place, as debt, when the configured budget allows nothing", async () => {
    const { summaries, spend, summaryCalls } = await chat(24, { summarySpendTokensPerSession: 0 });
    expect(summaries.length).toBeGreaterThan(0);
    expect(
      summaries.every((summary) => summary.summarizer.endsWith(" in place of model:fake/fake-model")),
    ).toBe(true);
    expect(summaryCalls).toBe(0);
    expect(spend.calls).toBe(0);
    expect(spend.debtChunks).toBeGreaterThan(0);
  });

  it("are written by rule, with no model call, when the plugin is configured so", async () => {
    const { summaries, spend } = await chat(24, { summarizer: "extractive" });
    expect(summaries.length).toBeGreaterThan(0);
    expect(summaries.every((summary) => summary.summarizer.startsWith("extractive"))).toBe(true);
    expect(agent?.fake.requests.filter(isSummaryCall)).toEqual([]);
    expect(spend.calls).toBe(0);
  });
});
