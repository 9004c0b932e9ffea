import type { Summarizer } from "@clew/core";
import { afterAll, describe, expect, it } from "vitest";
import {
  maintainAndSettle,
  SMALL_CHUNKS,
  StubSummarizer,
  store,
  TempDatabases,
  turns,
} from "./support/preparation.js";

const databases = new TempDatabases();
afterAll(() => databases.cleanup());

/** Messages a host turn adds: a prompt and the model's steps. */
const TURN_MESSAGES = 3;

describe("threshold compactions of a long session whose preparation keeps up", () => {
  it("publish the summaries prepared in the background and make none during the pass", async () => {
    const summarizer = new StubSummarizer("prepared");
    const { engine, store } = databases.open(await databases.path(), {
      ...SMALL_CHUNKS,
      defaultTokenBudget: 32_000,
      summarizer,
    });
    const conversation = turns(700);
    // Every turn is stored and maintained as a host does, with the preparation it starts finished
    // before the next turn (a model's reply takes longer than a summary of a small chunk).
    for (let stored = 0; stored < conversation.length; stored += TURN_MESSAGES) {
      await engine.afterTurn({
        sessionId: "s",
        sessionFile: "memory:s",
        messages: conversation.slice(0, stored + TURN_MESSAGES),
        prePromptMessageCount: stored,
      });
      await maintainAndSettle(engine, "s");
    }
    const passes = (await store.listCompactionPasses({ sessionId: "s", limit: 1_000 })).filter(
      (pass) => pass.trigger === "maintain" && pass.summaryIds.length > 0,
    );
    const written = (kind: "leaf" | "condensed") => passes.reduce((sum, pass) => sum + pass.outputs[kind], 0);
    expect(passes.length).toBeGreaterThanOrEqual(4);
    expect(written("leaf")).toBeGreaterThan(20);
    // Summaries still far under their share: nothing to condense yet.
    expect(written("condensed")).toBe(0);
    const madeDuringPass = passes.map(
      (pass) => pass.outputs.leaf + pass.outputs.condensed - (pass.outputs.prepared ?? Number.NaN),
    );
    expect(madeDuringPass).toEqual(passes.map(() => 0));
    // Every summarizer call was a preparation, of a summary published since or waiting for the
    // next compaction: none was wasted.
    const waiting = (await store.listSummaryJobs("s")).filter((job) => job.prepared !== undefined);
    expect(waiting.length).toBeGreaterThan(0);
    expect(summarizer.calls).toHaveLength(written("leaf") + waiting.length);
  });
});

describe("a forced compaction with several chunks to summarize and nothing prepared", () => {
  async function compactAt(concurrency: number) {
    const summarizer = new StubSummarizer("live");
    const { engine, store: db } = databases.open(await databases.path(), {
      ...SMALL_CHUNKS,
      summarizer,
      prepareSummaries: false,
      summarizerConcurrency: concurrency,
    });
    await store(engine, "s", turns(60));
    const result = await engine.compact({ sessionId: "s", tokenBudget: 8_000, force: true });
    const view = await db.readContextView("s");
    return { result, summarizer, items: view.items.map((item) => [item.position, item.ref]) };
  }

  it("makes the leaves' calls together, up to the concurrency limit, with the same outcome", async () => {
    const oneByOne = await compactAt(1);
    const together = await compactAt(3);
    expect(oneByOne.result.compacted).toBe(true);
    expect(oneByOne.summarizer.calls.length).toBeGreaterThanOrEqual(4);
    expect(oneByOne.summarizer.maxInFlight).toBe(1);
    expect(together.summarizer.maxInFlight).toBe(3);
    expect(together.summarizer.calls).toHaveLength(oneByOne.summarizer.calls.length);
    expect(together.items).toEqual(oneByOne.items);
    expect(together.result.result?.tokensAfter).toBe(oneByOne.result.result?.tokensAfter);
  });

  it("starts no more builds at once than the limit, each after the event loop had a turn", async () => {
    // A model that answers at once: nothing but the builds' own steps frees the event loop.
    const summarizer: Summarizer = { id: "model:test/instant", summarize: async () => "## Goal\n- done" };
    const { engine, store: db } = databases.open(await databases.path(), {
      ...SMALL_CHUNKS,
      summarizer,
      prepareSummaries: false,
      summarizerConcurrency: 2,
    });
    await store(engine, "s", turns(120));
    let turnsOfTheLoop = 0;
    let done = false;
    const count = () => {
      turnsOfTheLoop += 1;
      if (!done) setImmediate(count);
    };
    setImmediate(count);
    await engine.compact({ sessionId: "s", tokenBudget: 8_000, force: true });
    done = true;
    const [pass] = await db.listCompactionPasses({ sessionId: "s", limit: 1 });
    expect(pass?.outputs.leaf).toBeGreaterThanOrEqual(10);
    expect(turnsOfTheLoop).toBeGreaterThanOrEqual(Math.floor((pass?.outputs.leaf ?? 0) / 2));
  });
});
