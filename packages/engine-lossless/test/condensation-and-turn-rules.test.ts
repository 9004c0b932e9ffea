import type { AgentMessage } from "@clew/core";
import { orphanToolResults } from "@clew/plugin-sdk/testing";
import { afterAll, describe, expect, it } from "vitest";
import { compactView } from "../src/compaction/compact-view.js";
import { chunkKeyOf } from "../src/compaction/leaf-chunk.js";
import { leafSupplyOf } from "../src/compaction/leaf-supply.js";
import { resolveOptions } from "../src/options.js";
import { preparableCondensation } from "../src/prepare/preparable-chunks.js";
import type { StoredSummaryJob } from "../src/store/store.js";
import type { ViewItem } from "../src/view/session-view.js";
import { assistantText, assistantToolCall, toolResult, userText } from "./support/conversations.js";
import { StubSummarizer, TestClock } from "./support/preparation.js";
import { TempEngines } from "./support/temp-engine.js";
import { positionsOf, raw, summary } from "./support/view-items.js";

const engines = new TempEngines();
afterAll(() => engines.cleanup());

/** Fan-in 4, runs of at most 2,000 tokens: the shape both condensation rules are checked under. */
const SHAPE = { condenseFanIn: 4, leafChunkTokens: 2_000, summaryLimit: 1_000 };

describe("a condensation short of the fan-in, followed by a summary in the fresh tail", () => {
  // Three leaves before the tail; the tail (600 tokens) holds summary 4 and two raw messages, so
  // the run compaction would condense now is 1–3: short of the fan-in, with a summary after it.
  const TAIL_TOKENS = 600;
  const view = (fourth: ViewItem) => [summary(1), summary(2), summary(3), fourth, raw(5), raw(6)];

  it("is not prepared while that summary could still join the run once the tail moves on", () => {
    // Summary 4 is a leaf: once it leaves the tail, compaction condenses 1–4, not 1–3.
    expect(preparableCondensation(view(summary(4)), TAIL_TOKENS, SHAPE)).toBeUndefined();
  });

  it("is prepared when that summary can never join it (deeper than the run)", () => {
    // The only change: summary 4 is a condensed node, so the run stays 1–3 wherever the tail is.
    const chunk = preparableCondensation(view(summary(4, 1)), TAIL_TOKENS, SHAPE);
    expect(chunk).toMatchObject({ kind: "condensed", firstPosition: 1, lastPosition: 3 });
    expect(positionsOf(chunk?.items)).toEqual([1, 2, 3]);
  });
});

describe("the threshold compaction and a run another worker is preparing", () => {
  const clock = new TestClock();
  // Five leaves (1,000 tokens) then two raw messages: a 2,000-token budget keeps 500 for the tail
  // (the raw messages) and 500 for summaries, so the leaves are over their share and condense.
  const items = [summary(1), summary(2), summary(3), summary(4), summary(5), raw(6), raw(7)];
  const run = items.slice(0, 4);
  const job = (leaseExpiresAt: number): StoredSummaryJob => ({
    chunkKey: chunkKeyOf(run),
    kind: "condensed",
    firstPosition: 1,
    lastPosition: 4,
    attempts: 1,
    owner: "other-worker",
    leaseExpiresAt,
  });

  async function compactWith(leaseExpiresAt: number, threshold: boolean) {
    const summarizer = new StubSummarizer("live");
    const options = resolveOptions({
      condenseFanIn: SHAPE.condenseFanIn,
      leafChunkTokens: SHAPE.leafChunkTokens,
      summarizer,
      now: clock.now,
    });
    const outcome = await compactView(
      { ...options, counter: options.tokenCounter },
      {
        sessionId: "s",
        items,
        targetTokens: 1_800,
        budgetTokens: 2_000,
        // As `maintain` runs it: forced, under the target but over the summary share.
        force: true,
        supply: leafSupplyOf([job(leaseExpiresAt)], clock.now()),
        ...(threshold ? { liveLeavesAbove: 1_350 } : {}),
      },
    );
    return { outcome, summarizer };
  }

  it("leaves a leased run to its worker: nothing condensed, no summarizer call", async () => {
    const { outcome, summarizer } = await compactWith(clock.now() + 60_000, true);
    expect(summarizer.calls).toEqual([]);
    expect(outcome.condensedNodes).toBe(0);
    expect(outcome.write.edits).toEqual([]);
    expect(outcome.items).toEqual(items);
  });

  it("condenses the same run once the lease has expired", async () => {
    const { outcome, summarizer } = await compactWith(clock.now() - 1, true);
    expect(summarizer.calls).toHaveLength(1);
    expect(outcome.condensedNodes).toBe(1);
    expect(outcome.write.edits[0]?.replace.map((entry) => entry.position)).toEqual([1, 2, 3, 4]);
    expect(positionsOf(outcome.items)).toEqual([1, 5, 6, 7]);
  });

  it("condenses a leased run all the same outside the threshold compaction", async () => {
    const { outcome } = await compactWith(clock.now() + 60_000, false);
    expect(outcome.condensedNodes).toBe(1);
    expect(outcome.write.edits[0]?.replace.map((entry) => entry.position)).toEqual([1, 2, 3, 4]);
  });
});

describe("the threshold compaction and raw messages it leaves for preparation", () => {
  // Two leaves (400 tokens, under the 500 of the summary share), four raw messages before the
  // tail (a chunk not prepared yet) and the tail: 1,600 tokens, under `liveLeavesAbove`, so the
  // leaf phase leaves the chunk raw for its prepared leaf. Counted with the summaries, those raw
  // messages put "the summaries" over their share: compaction then condensed them, a live call
  // per run of a summary and raw messages, each node one level deeper than the last (a long
  // session measured 67 live calls in one compaction).
  const items = [summary(1), summary(2), raw(3), raw(4), raw(5), raw(6), raw(7), raw(8)];

  it("makes no node and calls no summarizer", async () => {
    const summarizer = new StubSummarizer("live");
    const options = resolveOptions({ condenseFanIn: SHAPE.condenseFanIn, summarizer });
    const outcome = await compactView(
      { ...options, counter: options.tokenCounter },
      {
        sessionId: "s",
        items,
        targetTokens: 1_800,
        budgetTokens: 2_000,
        force: true,
        supply: leafSupplyOf([], 0),
        liveLeavesAbove: 1_700,
      },
    );
    expect(summarizer.calls).toEqual([]);
    expect(outcome.write.edits).toEqual([]);
    expect(outcome.items).toEqual(items);
  });
});

describe("a running turn whose first user message is a steering message typed in its first step", () => {
  const T = 1_700_000_000_000;
  const stored: AgentMessage[] = [userText("hello", T), assistantText("hi", T + 1)];
  const steering = userText("also skip the vendored packages", T + 5);
  const TOKEN_BUDGET = 1_500;

  /**
   * A turn the host runs with no prompt of its own (it continues from `stored`), 150 tool steps
   * long, with a steering message typed during the first step: between the call and its result
   * (`beforeResult`), or after the result.
   */
  function turnWithSteering(beforeResult: boolean): AgentMessage[] {
    const call = assistantToolCall("call_0", "exec", { command: "grep -r flag packages/p0" }, T + 4);
    const result = toolResult("call_0", "exec", "p0: no match", T + 6);
    const turn = beforeResult ? [call, steering, result] : [call, result, steering];
    for (let step = 1; step < 150; step++) {
      const id = `call_${step}`;
      turn.push(
        assistantToolCall(id, "exec", { command: `grep -r flag packages/p${step}` }, T + 10 + step * 2),
        toolResult(id, "exec", `p${step}: no match`, T + 11 + step * 2),
      );
    }
    return turn;
  }

  async function assembleTurn(turn: AgentMessage[]) {
    const engine = await engines.engineWithTurn(stored);
    return engine.assemble({ sessionId: "s", messages: [...stored, ...turn], tokenBudget: TOKEN_BUDGET });
  }

  // Typed before the result, the message ends the call's group as it will once stored: the call
  // gets a synthetic result there and its late result is left out (see `assembledAfter`), so the
  // message stands where a group of its own starts, as it does when typed after the result.
  for (const beforeResult of [true, false])
    it(`pins it when typed ${beforeResult ? "before" : "after"} the result, never separating a result from its call`, async () => {
      const turn = turnWithSteering(beforeResult);
      const result = await assembleTurn(turn);
      expect(result.estimatedTokens).toBeLessThanOrEqual(TOKEN_BUDGET);
      expect(JSON.stringify(result.messages[0])).toMatch(/\d+ messages of this turn/);
      expect(result.messages[1]).toEqual(steering);
      const newest = result.messages.slice(2);
      expect(newest.length).toBeGreaterThan(10);
      expect(newest).toEqual(turn.slice(-newest.length));
      expect(orphanToolResults(result.messages)).toEqual([]);
    });
});
