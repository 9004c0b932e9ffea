import {
  type AgentMessage,
  charEstimateTokenCounter,
  countMessagesTokens,
  loadO200kTokenCounter,
  type TokenCounter,
} from "@clew/core";
import { orphanToolResults } from "@clew/plugin-sdk/testing";
import { afterEach, describe, expect, it } from "vitest";
import { assembleView } from "../src/assemble/assemble-view.js";
import { assembleWithDigest, DigestCache } from "../src/assemble/history-digest.js";
import { messageDigest } from "../src/ingest/message-identity.js";
import { SessionView } from "../src/view/session-view.js";
import { assistantToolCall, toolResult, userText } from "./support/conversations.js";
import { StubSummarizer, store, TempDatabases, turns } from "./support/preparation.js";

const databases = new TempDatabases();
afterEach(() => databases.cleanup());

function textOf(message: AgentMessage | undefined): string {
  const content = (message as { content?: unknown } | undefined)?.content;
  return typeof content === "string" ? content : JSON.stringify(content);
}

function sentTokens(
  counter: TokenCounter,
  result: { messages: AgentMessage[]; systemPromptAddition?: string },
) {
  return countMessagesTokens(counter, result.messages) + counter.countText(result.systemPromptAddition ?? "");
}

async function until(condition: () => boolean): Promise<void> {
  for (let turn = 0; turn < 1_000 && !condition(); turn++)
    await new Promise((resolve) => setImmediate(resolve));
  expect(condition()).toBe(true);
}

describe("assembly while summaries are pending", () => {
  it("stands a digest in for the oldest history while the compaction waits for the summarizer", async () => {
    const summarizer = new StubSummarizer("slow");
    const { engine } = databases.open(await databases.path(), { summarizer, prepareSummaries: false });
    const history = turns(200);
    await engine.assemble({ sessionId: "s", messages: [], tokenBudget: 8_000 });
    await store(engine, "s", history);
    summarizer.hold();
    const maintaining = engine.maintain({ sessionId: "s", sessionFile: "memory:s" });
    try {
      await until(() => summarizer.inFlight > 0);
      const pending = await engine.assemble({ sessionId: "s", messages: history, tokenBudget: 8_000 });
      expect(sentTokens(charEstimateTokenCounter, pending)).toBeLessThanOrEqual(8_000);
      expect(orphanToolResults(pending.messages)).toEqual([]);
      const digest = textOf(pending.messages[0]);
      const header =
        /^\[Context note\] \d+ messages \(m1–m(\d+)\) from earlier .* a digest of them, made by code/s;
      expect(digest).toMatch(header);
      // Both ends of what was left out are represented: the first request, and the newest message
      // (a tool result shares its call's line, which names both).
      expect(digest).toContain("## Goal\n- Turn 0: please look at src/module-0.ts");
      expect(digest).toMatch(new RegExp(`[(–]m${header.exec(digest)?.[1]}\\): `));
      expect(digest).toMatch(/## Exact Identifiers\n- src\/module-\d+\.ts/);
      expect(pending.messages.slice(-3).map(messageDigest)).toEqual(history.slice(-3).map(messageDigest));
      const again = await engine.assemble({ sessionId: "s", messages: history, tokenBudget: 8_000 });
      expect(again.messages).toEqual(pending.messages);
    } finally {
      summarizer.release();
      await maintaining;
    }
    const compacted = await engine.assemble({ sessionId: "s", messages: history, tokenBudget: 8_000 });
    expect(JSON.stringify(compacted.messages)).not.toContain("[Context note]");
  });

  for (const counterName of ["chars/4", "o200k"]) {
    it(`stays within every budget by the engine's counter (${counterName}), with the plain note when little is left`, async () => {
      const counter = counterName === "o200k" ? await loadO200kTokenCounter() : charEstimateTokenCounter;
      const { engine } = databases.open(await databases.path(), {
        tokenCounter: counter,
        prepareSummaries: false,
      });
      const history = turns(200);
      await store(engine, "s", history);
      for (const tokenBudget of [600, 1_400, 2_000, 3_000, 6_000, 12_000]) {
        const result = await engine.assemble({ sessionId: "s", messages: history, tokenBudget });
        expect(sentTokens(counter, result), `at ${tokenBudget}`).toBeLessThanOrEqual(tokenBudget);
        expect(orphanToolResults(result.messages)).toEqual([]);
        const first = textOf(result.messages[0]);
        expect(first).toMatch(/^\[Context note\]/);
        if (tokenBudget >= 2_000) expect(first).toContain("made by code");
        else expect(first).not.toContain("made by code");
      }
    });
  }
});

/** A running turn: its prompt, then `steps` tool calls, each reading a file of its own. */
function toolLoop(steps: number, startAt: number): AgentMessage[] {
  const messages: AgentMessage[] = [userText("Audit every module for the retry bug.", startAt)];
  for (let step = 0; step < steps; step++) {
    const id = `call_${step}`;
    const timestamp = startAt + 1 + step * 2;
    messages.push(
      assistantToolCall(id, "read", { path: `src/audit/module-${step}.ts` }, timestamp),
      toolResult(id, "read", `ERR_RETRY_${step}: retries exhausted\n${"x ".repeat(700)}`, timestamp + 1),
    );
  }
  return messages;
}

describe("a running turn's tool loop over the budget", () => {
  it("digests the turn's own left-out steps, not only the stored history", async () => {
    const { engine } = databases.open(await databases.path(), { prepareSummaries: false });
    const history = turns(4);
    await store(engine, "s", history);
    const loop = toolLoop(60, 1_900_000_000_000);
    const result = await engine.assemble({
      sessionId: "s",
      messages: [...history, ...loop],
      tokenBudget: 8_000,
    });
    expect(sentTokens(charEstimateTokenCounter, result)).toBeLessThanOrEqual(8_000);
    expect(orphanToolResults(result.messages)).toEqual([]);
    const digest = textOf(result.messages[0]);
    expect(digest).toMatch(/^\[Context note\] .* messages of this turn .* a digest of them, made by code/s);
    // The prompt is kept right after the digest; the newest steps follow in full.
    expect(textOf(result.messages[1])).toBe("Audit every module for the retry bug.");
    const keptSteps = result.messages.filter((message) => message.role === "toolResult").length;
    expect(keptSteps).toBeGreaterThan(0);
    expect(keptSteps).toBeLessThan(60);
    // The oldest left-out step (the first chunk) and the newest left-out one are in the digest.
    expect(digest).toContain("src/audit/module-0.ts");
    expect(digest).toContain(`ERR_RETRY_${59 - keptSteps}`);
    // The stored history left out is still named, for recall.
    expect(digest).toMatch(/^\[Context note\] 12 messages \(m1–m12\), \d+ messages of this turn/);
    // The next step of the loop: the first steps stay in the digest, the one just left out joins it.
    const longer = toolLoop(61, 1_900_000_000_000);
    const next = await engine.assemble({
      sessionId: "s",
      messages: [...history, ...longer],
      tokenBudget: 8_000,
    });
    expect(sentTokens(charEstimateTokenCounter, next)).toBeLessThanOrEqual(8_000);
    const nextDigest = textOf(next.messages[0]);
    expect(nextDigest).toContain("src/audit/module-0.ts");
    expect(nextDigest).toContain(`ERR_RETRY_${60 - keptSteps}`);
  });

  it("digests them on a session's first turn too, with nothing stored yet (as after a /new)", async () => {
    const { engine } = databases.open(await databases.path(), { prepareSummaries: false });
    const loop = toolLoop(60, 1_900_000_000_000);
    const result = await engine.assemble({ sessionId: "fresh", messages: loop, tokenBudget: 8_000 });
    expect(sentTokens(charEstimateTokenCounter, result)).toBeLessThanOrEqual(8_000);
    expect(orphanToolResults(result.messages)).toEqual([]);
    const digest = textOf(result.messages[0]);
    expect(digest).toMatch(/^\[Context note\] \d+ messages of this turn .* a digest of them, made by code/s);
    expect(digest).toContain("src/audit/module-0.ts");
    expect(textOf(result.messages[1])).toBe("Audit every module for the retry bug.");
  });
});

describe("the digest never costs the newest group", () => {
  it("keeps the newest group whenever the fit without a digest keeps it, whatever the budget", async () => {
    // A running turn on an empty view: one assistant message calling many tools at once.
    const calls = Array.from({ length: 24 }, (_, index) => `call_many_${index}`);
    const running: AgentMessage[] = [
      { role: "user", content: "Check every shard.", timestamp: 1_950_000_000_000 },
      ...toolLoop(6, 1_950_000_000_001).slice(1),
      {
        ...assistantToolCall("unused", "read", {}, 1_950_000_000_100),
        content: calls.map((id, index) => ({
          type: "toolCall" as const,
          id,
          name: "read",
          arguments: { path: `shards/${index}.log` },
        })),
      },
      ...calls.map((id, index) =>
        toolResult(id, "read", `shard ${index}: ${"ok ".repeat(120)}`, 1_950_000_000_200 + index),
      ),
    ];
    const cache = new DigestCache();
    let checked = 0;
    for (let budget = 1_500; budget <= 6_000; budget += 25) {
      const { plain, digested } = await bothFits(running, budget, cache);
      if (plain.messages.at(-1) !== running.at(-1) && plain.clipped === 0) continue;
      expect(digested.tokens, `at ${budget}`).toBeLessThanOrEqual(budget);
      const last = digested.messages.at(-1) as { toolCallId?: string };
      expect(last.toolCallId, `newest group at ${budget}`).toBe("call_many_23");
      checked += 1;
    }
    expect(checked).toBeGreaterThan(100);
  });

  it("keeps the turn's prompt, and as much of a shortened newest result, as the fit without a digest", async () => {
    const counter = charEstimateTokenCounter;
    const cache = new DigestCache();
    const longPrompt = userText(`Audit this: ${"spec ".repeat(1_700)}`, 1_960_000_000_000);
    const withLongPrompt = [longPrompt, ...toolLoop(30, 1_960_000_000_001).slice(1)];
    // Steps too small to shorten: only the prompt rule keeps the prompt out of the digest.
    const withSmallSteps = [
      longPrompt,
      ...Array.from({ length: 30 }, (_, step) => [
        assistantToolCall(`small_${step}`, "read", { path: `s/${step}.ts` }, 1_960_000_001_000 + step * 2),
        toolResult(`small_${step}`, "read", `ok ${step} ${"fine ".repeat(30)}`, 1_960_000_001_001 + step * 2),
      ]).flat(),
    ];
    const hugeResult = [
      userText("Read the log.", 1_970_000_000_000),
      assistantToolCall("call_log", "read", { path: "big.log" }, 1_970_000_000_001),
      toolResult("call_log", "read", "log ".repeat(40_000), 1_970_000_000_002),
    ];
    let compared = 0;
    for (const [running, budgets] of [
      [withLongPrompt, range(2_000, 4_000, 10)],
      [withSmallSteps, range(2_150, 2_600, 5)],
      [hugeResult, range(2_000, 12_000, 500)],
    ] as const) {
      for (const budget of budgets) {
        const { plain, digested } = await bothFits(running, budget, cache);
        expect(digested.tokens, `at ${budget}`).toBeLessThanOrEqual(budget);
        if (plain.messages.includes(running[0] as AgentMessage))
          expect(digested.messages, `prompt at ${budget}`).toContain(running[0]);
        const plainLast = plain.messages.at(-1);
        const digestedLast = digested.messages.at(-1);
        if (plainLast !== undefined && plainLast.role === "toolResult") {
          expect(digestedLast?.role, `newest at ${budget}`).toBe("toolResult");
          const kept = counter.countMessage(digestedLast as AgentMessage);
          expect(kept, `newest result at ${budget}`).toBeGreaterThanOrEqual(counter.countMessage(plainLast));
          compared += 1;
        }
      }
    }
    expect(compared).toBeGreaterThan(150);
  });
});

/** A running turn on an empty view fitted to `budget` without a digest and with one. */
async function bothFits(running: readonly AgentMessage[], budget: number, cache: DigestCache) {
  const view = new SessionView(0);
  const counter = charEstimateTokenCounter;
  const plain = assembleView(view, running, budget, counter);
  const digested = await assembleWithDigest({
    sessionId: "s",
    view,
    hostMessages: running,
    budget,
    counter,
    cache,
  });
  return { plain, digested };
}

function range(from: number, to: number, step: number): number[] {
  const values: number[] = [];
  for (let value = from; value <= to; value += step) values.push(value);
  return values;
}
