import { join } from "node:path";
import { type FakeReply, promptUnitTokens, type RecordedRequest, withPrefixCache } from "@clew/agent/testing";
import { SUMMARY_SYSTEM_PROMPT } from "@clew/core";
import { afterEach, describe, expect, it } from "vitest";
import { readPassCacheEffect } from "../src/inspect/provider-cache.js";
import { readSessionReport } from "../src/inspect/session-report.js";
import { cacheReadShare } from "../src/recorder/model-call-cache.js";
import { openSqliteStoreReadOnly } from "../src/store/sqlite/open-read-only.js";
import { createLosslessAgent } from "./support/agent-harness.js";

const KEY = "agent:main:main";

let agent: Awaited<ReturnType<typeof createLosslessAgent>> | undefined;
afterEach(async () => {
  await agent?.cleanup();
  agent = undefined;
});

function messagesOf(request: RecordedRequest | undefined): Array<{ role: string; content: unknown }> {
  return (
    (request?.body as { messages?: Array<{ role: string; content: unknown }> } | undefined)?.messages ?? []
  );
}

function reply(request: RecordedRequest): FakeReply {
  const count = messagesOf(request).length;
  return { text: `Reply to a prompt of ${count} messages: ${"noted, and the plan stands. ".repeat(12)}` };
}

/** The host's pre-compaction memory flush: a silent call of its own, once per compaction cycle. */
function isMemoryFlush(request: RecordedRequest | undefined): boolean {
  return JSON.stringify(messagesOf(request).at(-1)?.content ?? "").startsWith('"Pre-compaction memory flush');
}

/**
 * Tokens of the request's history: everything but the recall block and the pending prompt, which
 * the engine places last. The next call can read all of it from the cache unless a compaction
 * changed the history in between.
 */
function historyTokens(request: RecordedRequest | undefined): number {
  const units = promptUnitTokens(request?.body);
  const messages = messagesOf(request);
  const block = messages.findIndex((message) => String(message.content).startsWith("[Recalled context]"));
  const total = units.reduce((sum, tokens) => sum + tokens, 0);
  return total - (units.at(-1) ?? 0) - (block < 0 ? 0 : (units[block + 1] ?? 0));
}

/** A summary the engine asked the host's model for: a request of its own, with its own prompt. */
function isSummaryCall(request: RecordedRequest | undefined): boolean {
  const system = messagesOf(request).find((message) => message.role === "system");
  return JSON.stringify(system?.content ?? "").includes(JSON.stringify(SUMMARY_SYSTEM_PROMPT).slice(1, 60));
}

/**
 * 40 turns through a real agent at a 28k window; then the chat's calls (the summary calls left
 * out: other prompts, which the provider caches apart) must break the cache exactly once per
 * compaction that changed the view and was followed by a call, as the flight recorder finds it.
 */
async function checkBreaks(pluginConfig: Record<string, unknown>, expectSummaryCalls: boolean) {
  const cache = withPrefixCache(reply);
  agent = await createLosslessAgent(cache.script, { contextWindow: 28_000, pluginConfig });
  const { service, fake } = agent;
  await service.createSession({ sessionKey: KEY });
  for (let turn = 0; turn < 40; turn++) {
    const text = `Turn ${turn}: the deploy of service-${turn % 5} needs ${"a careful look at its settings ".repeat(30)}`;
    expect(await service.sendMessage(KEY, text)).toMatchObject({ ok: true });
  }
  await agent.service.close();

  // A call "breaks" the cache when it cannot read the history of the chat call before it.
  // The host's memory flush ran too, once per compaction cycle (the engine's compactions in
  // maintenance are counted since the host learns of them): its own calls add no break (the
  // count of breaks below equals the passes').
  const chat = fake.requests.flatMap((request, index) =>
    isSummaryCall(request) ? [] : [{ request, read: cache.cacheReads[index] ?? 0 }],
  );
  expect(chat.length < fake.requests.length).toBe(expectSummaryCalls);
  const flushes = chat.flatMap((call, index) => (isMemoryFlush(call.request) ? [index] : []));
  expect(flushes.length).toBeGreaterThanOrEqual(2);
  const breaks = chat.flatMap((call, index) =>
    index > 0 && call.read < historyTokens(chat[index - 1]?.request) ? [{ index, read: call.read }] : [],
  );
  // A flush breaks the cache only as the first call after a compaction, which breaks it anyway;
  // the user's call after it reads the flush's prefix.
  for (const flush of flushes)
    if (breaks.some((call) => call.index === flush))
      expect(breaks.map((call) => call.index)).not.toContain(flush + 1);

  const store = openSqliteStoreReadOnly(join(agent.home, "agents", "main", "lossless.db"));
  try {
    const [session] = await store.listSessions();
    const sessionId = session?.sessionId ?? "";
    const passes = await store.listCompactionPasses({ sessionId, limit: 100 });
    const changedView = passes.filter((pass) => pass.tokensAfter < pass.tokensBefore);
    const effects = await Promise.all(changedView.map((pass) => readPassCacheEffect(store, pass)));
    // A pass after the last call has no call after it to break (prompt sizes, and so when
    // compactions come, depend on the temp folder's name in the system prompt).
    const followed = effects.filter((effect) => effect.after !== undefined);
    expect(followed.length).toBeGreaterThanOrEqual(2);
    expect(followed.length).toBeGreaterThanOrEqual(changedView.length - 1);
    expect(breaks).toHaveLength(followed.length);
    // Each break is the first call after a pass, as the flight recorder finds it.
    const ascending = (left: number, right: number) => left - right;
    expect(followed.map((effect) => effect.after?.cacheReadTokens ?? -1).sort(ascending)).toEqual(
      breaks.map((call) => call.read).sort(ascending),
    );
    for (const effect of followed) {
      if (effect.before === undefined || effect.after === undefined) throw new Error("no call before a pass");
      expect(cacheReadShare(effect.after)).toBeLessThan(cacheReadShare(effect.before));
    }

    // Every chat call's usage reached the store as the provider reported it.
    const report = await readSessionReport(store, undefined, sessionId);
    expect(report.providerCache).toMatchObject({
      calls: chat.length,
      cacheReadTokens: chat.reduce((sum, call) => sum + call.read, 0),
    });
  } finally {
    await store.close();
  }
}

describe("the provider's prompt cache through a real agent", () => {
  it("breaks once per compaction that changed the view, never for the memory flush, as the flight recorder shows", async () => {
    await checkBreaks({ summarizer: "extractive" }, false);
  });

  it("the same with summaries by the host's model, the plugin's default", async () => {
    await checkBreaks({}, true);
  });
});
