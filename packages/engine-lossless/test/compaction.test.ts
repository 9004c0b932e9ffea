import type { AgentMessage, Summarizer } from "@clew/core";
import { afterEach, describe, expect, it } from "vitest";
import { messageDigest } from "../src/ingest/message-identity.js";
import { LosslessEngine } from "../src/lossless-engine.js";
import { openSqliteStore } from "../src/store/sqlite/sqlite-store.js";
import { readBack } from "./support/compactions.js";
import {
  assistantToolCall,
  codingConversation,
  fillerText,
  longConversation,
  toolResult,
  userText,
} from "./support/conversations.js";
import { store as stored } from "./support/preparation.js";
import { recallToolsOf } from "./support/recall.js";
import { TempEngines } from "./support/temp-engine.js";

const engines = new TempEngines();
afterEach(() => engines.cleanup());

function summaryIdsIn(messages: readonly AgentMessage[]): string[] {
  return messages.flatMap((message) => {
    const content = (message as { content?: unknown }).content;
    const match =
      typeof content === "string" ? /^<lossless-summary id="(sum_[0-9a-f]+)"/.exec(content) : null;
    return match?.[1] === undefined ? [] : [match[1]];
  });
}

async function describeSummary(engine: LosslessEngine, sessionId: string, id: string) {
  const { describe } = recallToolsOf(engine, sessionId);
  return (await describe.execute("d", { id })).details as {
    summarizer: string;
    children: string[];
    parent: string | undefined;
    anchors: Array<{ value: string; messages: string[] }>;
    anchorCount: number;
    content: string;
  };
}

describe("compaction results", () => {
  it("does not report compacted for an empty session or a view inside the fresh tail", async () => {
    const engine = await engines.engine();
    expect(await engine.compact({ sessionId: "empty", force: true })).toMatchObject({
      ok: true,
      compacted: false,
      reason: "no stored history for this session",
    });
    await stored(engine, "small", codingConversation(3));
    const small = await engine.compact({ sessionId: "small", tokenBudget: 100_000, force: true });
    expect(small).toMatchObject({ ok: true, compacted: false, reason: "nothing to compact" });
  });

  it("reaches the target: the budget less the host's reserve, the recall policy and the margin", async () => {
    const engine = await engines.engine();
    await stored(engine, "s", longConversation(40));
    const result = await engine.compact({
      sessionId: "s",
      tokenBudget: 30_000,
      force: true,
      runtimeSettings: {
        schemaVersion: 1,
        runtime: { host: "test", mode: "normal", harnessId: null, runtimeId: null },
        model: { requested: null, resolved: null, provider: null, family: null },
        contextEngineSelection: { selectedId: "lossless", source: "configured" },
        executionHost: { id: null, label: null },
        limits: { promptTokenBudget: 30_000, maxOutputTokens: 20_000 },
        diagnostics: { fallbackReason: null, degradedReason: null },
      },
    });
    const details = result.result?.details as { budgetTokens: number; targetTokens: number };
    expect(details.budgetTokens).toBe(10_000);
    expect(details.targetTokens).toBeLessThan(10_000 - 100);
    expect(result).toMatchObject({ ok: true, compacted: true });
    expect(result.result?.tokensAfter).toBeLessThanOrEqual(details.targetTokens);
  });

  it("says exactly why when the fresh tail alone is over the target", async () => {
    const engine = await engines.engine();
    const messages = [
      ...codingConversation(10, { toolOutputChars: 3_000 }),
      userText("read it", 1_800_000_000_000),
      assistantToolCall("call_huge", "read", { path: "huge.txt" }, 1_800_000_000_001),
      toolResult("call_huge", "read", fillerText(60_000, 5), 1_800_000_000_002),
    ];
    await stored(engine, "s", messages);
    const result = await engine.compact({ sessionId: "s", tokenBudget: 8_000, force: true });
    expect(result.ok).toBe(false);
    expect(result.compacted).toBe(true);
    expect(result.reason).toMatch(
      /the fresh tail alone \(\d+ items, \d+ tokens, at least the newest message group\) is over the target of \d+ tokens/,
    );
  });
});

describe("compaction and the event loop", () => {
  it("builds its nodes as steps with the event loop free between them", async () => {
    // No summarizer: extractive summaries, which need no awaited I/O of their own.
    const engine = await engines.engine();
    await stored(engine, "s", codingConversation(60, { toolOutputChars: 3_000 }));
    let done = false;
    const compaction = engine.compact({ sessionId: "s", tokenBudget: 8_000, force: true }).then((result) => {
      done = true;
      return result;
    });
    // Promise callbacks alone (another session's turn awaiting its store) never see it finish.
    for (let tick = 0; tick < 2_000; tick++) await Promise.resolve();
    expect(done).toBe(false);
    expect((await compaction).compacted).toBe(true);
  });
});

describe("summaries", () => {
  it("falls back to extractive summaries when the summarizer throws, and keeps every message", async () => {
    const failing: Summarizer = {
      id: "model:test/failing",
      summarize: async () => {
        throw new Error("provider down");
      },
    };
    const engine = await engines.engine({ summarizer: failing });
    const messages = longConversation(30);
    await stored(engine, "s", messages);
    expect(await engine.compact({ sessionId: "s", tokenBudget: 4_000, force: true })).toMatchObject({
      ok: true,
      compacted: true,
    });
    const assembled = await engine.assemble({ sessionId: "s", messages, tokenBudget: 4_000 });
    const [first] = summaryIdsIn(assembled.messages);
    // Named as written in the model's place: a candidate for the model to write again later.
    expect((await describeSummary(engine, "s", first ?? "")).summarizer).toBe(
      "extractive in place of model:test/failing",
    );
    const digests = await Promise.all(messages.map((_, index) => readBack(engine, "s", `m${index + 1}`)));
    expect(digests.map(messageDigest)).toEqual(messages.map(messageDigest));
  });

  it("uses the injected summarizer and still writes the anchors it left out", async () => {
    const terse: Summarizer = {
      id: "model:test/terse",
      summarize: async () => "## Goal\n- keep the build green",
    };
    const engine = await engines.engine({ summarizer: terse, condensedTargetTokens: 4_000 });
    const messages = codingConversation(20, { toolOutputChars: 3_000 });
    await stored(engine, "s", messages);
    await engine.compact({ sessionId: "s", tokenBudget: 6_000, force: true });
    const assembled = await engine.assemble({ sessionId: "s", messages, tokenBudget: 6_000 });
    const [first] = summaryIdsIn(assembled.messages);
    const summary = await describeSummary(engine, "s", first ?? "");
    expect(summary.summarizer).toBe("model:test/terse");
    expect(summary.content).toContain("keep the build green");
    expect(summary.content).toContain("src/module-0.ts");
  });

  it("condenses into a DAG whose nodes carry their children's anchors verbatim", async () => {
    const store = openSqliteStore(":memory:");
    const engine = new LosslessEngine(store);
    const messages = longConversation(40);
    await stored(engine, "s", messages);
    for (const tokenBudget of [16_000, 4_000, 1_500])
      await engine.compact({ sessionId: "s", tokenBudget, force: true });
    const assembled = await engine.assemble({ sessionId: "s", messages, tokenBudget: 1_500 });
    const [rootId = ""] = summaryIdsIn(assembled.messages);
    const [root] = await store.readSummaries("s", [rootId]);
    expect(root?.kind).toBe("condensed");
    expect(root?.childIds.length).toBeGreaterThan(1);
    const rootAnchors = new Map(root?.anchors.map((anchor) => [anchor.value, anchor.messages]));
    for (const child of await store.readSummaries("s", root?.childIds ?? [])) {
      expect(child.parentId).toBe(rootId);
      for (const anchor of child.anchors) {
        expect(rootAnchors.get(anchor.value)).toEqual(expect.arrayContaining(anchor.messages.slice(0, 1)));
      }
    }
    expect(root?.sourceRanges).toEqual([[1, expect.any(Number)]]);
    const { search } = recallToolsOf(engine, "s");
    const hits = await search.execute("s", { query: "logs/huge.log" });
    expect((hits.details.hits as Array<{ kind: string }>).some((hit) => hit.kind === "summary")).toBe(true);
    await engine.dispose();
  });
});

describe("compaction alongside other work", () => {
  it("compacts in background maintenance once the view passes the threshold of the session's budget", async () => {
    const engine = await engines.engine();
    const messages = longConversation(40);
    await engine.assemble({ sessionId: "s", messages: [], tokenBudget: 8_000 });
    await stored(engine, "s", messages);
    const before = await engine.assemble({ sessionId: "s", messages, tokenBudget: 8_000 });
    expect(JSON.stringify(before.messages)).toContain("[Context note]");
    // The transcript is not rewritten; the compaction is told to the host (a Clew extension).
    const maintained = await engine.maintain({ sessionId: "s", sessionFile: "memory:s" });
    expect(maintained).toMatchObject({ changed: false, bytesFreed: 0, rewrittenEntries: 0 });
    const pass = (await engine.inspect("s")).lastCompaction;
    expect(maintained.compaction).toEqual({
      tokensBefore: pass?.tokensBefore,
      tokensAfter: pass?.tokensAfter,
    });
    expect(maintained.compaction?.tokensAfter).toBeLessThan(maintained.compaction?.tokensBefore as number);
    // Below the threshold now: nothing to tell.
    expect(await engine.maintain({ sessionId: "s", sessionFile: "memory:s" })).toEqual({
      changed: false,
      bytesFreed: 0,
      rewrittenEntries: 0,
    });
    const after = await engine.assemble({ sessionId: "s", messages, tokenBudget: 8_000 });
    expect(JSON.stringify(after.messages)).not.toContain("[Context note]");
    expect(summaryIdsIn(after.messages).length).toBeGreaterThan(0);
  });

  it("keeps a message stored while a compaction is writing summaries", async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const slow: Summarizer = {
      id: "model:test/slow",
      summarize: async () => {
        await gate;
        return "## Goal\n- slow summary";
      },
    };
    const engine = await engines.engine({ summarizer: slow });
    const messages = longConversation(30);
    await stored(engine, "s", messages);
    const compaction = engine.compact({ sessionId: "s", tokenBudget: 4_000, force: true });
    const late = userText("a message that arrived during compaction", 1_900_000_000_000);
    await engine.ingest({ sessionId: "s", message: late });
    release();
    expect(await compaction).toMatchObject({ compacted: true });
    const assembled = await engine.assemble({
      sessionId: "s",
      messages: [...messages, late],
      tokenBudget: 4_000,
    });
    expect(assembled.messages.at(-1)).toEqual(late);
  });

  it("stops when aborted, rejecting with the signal's reason, and keeps the history whole", async () => {
    const controller = new AbortController();
    let calls = 0;
    const aborting: Summarizer = {
      id: "model:test/aborting",
      summarize: async () => {
        calls += 1;
        if (calls === 2) controller.abort(new Error("cancelled by the user"));
        return "## Goal\n- partial";
      },
    };
    const engine = await engines.engine({ summarizer: aborting });
    const messages = longConversation(40);
    await stored(engine, "s", messages);
    await expect(
      engine.compact({ sessionId: "s", tokenBudget: 4_000, force: true, abortSignal: controller.signal }),
    ).rejects.toThrow("cancelled by the user");
    const digests = await Promise.all(messages.map((_, index) => readBack(engine, "s", `m${index + 1}`)));
    expect(digests.map(messageDigest)).toEqual(messages.map(messageDigest));
    const assembled = await engine.assemble({ sessionId: "s", messages, tokenBudget: 60_000 });
    expect(summaryIdsIn(assembled.messages).length).toBeGreaterThan(0);
  });
});
