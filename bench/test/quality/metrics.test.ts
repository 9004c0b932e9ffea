import {
  type AgentMessage,
  type AssembleParams,
  type AssembleResult,
  type AssistantMessage,
  type ContextEngine,
  charEstimateTokenCounter,
  countMessagesTokens,
} from "@clew/core";
import { assistantText, assistantToolCall, toolResult, userText } from "@clew/plugin-sdk/testing";
import { describe, expect, it } from "vitest";
import type { RecallAdapter } from "../../recall-adapter.js";
import { summarizeBudget } from "../../suites/quality/metrics/budget-compliance.js";
import { summarizeCompactions } from "../../suites/quality/metrics/compaction-stats.js";
import { scoreConfusables } from "../../suites/quality/metrics/confusables.js";
import { findEvidence, summarizeEvidence } from "../../suites/quality/metrics/evidence-recall.js";
import { needleInContext, needleRecall } from "../../suites/quality/metrics/needle-survival.js";
import { commonPrefixLength, PrefixStabilityTracker } from "../../suites/quality/metrics/prefix-stability.js";
import { PromptCacheTracker } from "../../suites/quality/metrics/prompt-cache.js";
import { scoreRanking, summarizeRanking } from "../../suites/quality/metrics/recall-ranking.js";
import { compareRoundTrip } from "../../suites/quality/metrics/round-trip.js";
import { sequenceRatio } from "../../suites/quality/metrics/sequence-ratio.js";
import { checkStructure } from "../../suites/quality/metrics/structural-validity.js";

const counter = charEstimateTokenCounter;

describe("M1 evidence-recall", () => {
  const texts: Record<string, string> = {
    "D1:1": "I adopted a dog named Pixel.   It was spontaneous.",
    "D1:2": "We moved to Porto. The flat is small.",
  };
  const evidenceText = (id: string) => (texts[id] ?? "").replace(/\s+/g, " ");

  it("finds evidence verbatim, by a summary's source label, or not at all", () => {
    const sent = [
      userText("Earlier: I adopted a dog named Pixel. It was\nspontaneous.", 1),
      userText("<summary>- ⟦D1:2⟧ We moved to Porto.</summary>", 2),
    ];
    expect(findEvidence(sent, ["D1:1", "D1:2", "D1:3"], evidenceText)).toEqual({
      raw: ["D1:1"],
      covered: ["D1:1", "D1:2"],
    });
  });

  it("rates all-evidence and mean fraction per budget and category, counting failed asks as misses", () => {
    const report = summarizeEvidence([
      {
        questionId: "Q1",
        category: "single-hop",
        budget: 2_000,
        evidence: ["a"],
        raw: ["a"],
        covered: ["a"],
      },
      {
        questionId: "Q2",
        category: "multi-hop",
        budget: 2_000,
        evidence: ["a", "b"],
        raw: ["a"],
        covered: ["a", "b"],
      },
      {
        questionId: "Q3",
        category: "multi-hop",
        budget: 2_000,
        evidence: ["c"],
        raw: [],
        covered: [],
        failed: "overflow",
      },
      { questionId: "Q4", category: "adversarial", budget: 2_000, evidence: [], raw: [], covered: [] },
    ]);
    const rates = report.byBudget["2000"];
    expect(rates).toMatchObject({
      questions: 3,
      allRaw: 1 / 3,
      allCovered: 2 / 3,
      meanRaw: 0.5,
      meanCovered: 2 / 3,
    });
    expect(rates?.byCategory["multi-hop"]).toMatchObject({ questions: 2, allCovered: 0.5, meanRaw: 0.25 });
    expect(rates?.byCategory.adversarial).toBeUndefined();
  });
});

describe("M2 recall@k and MRR", () => {
  it("scores a ranking against the evidence ids", () => {
    const score = scoreRanking([undefined, "D1", "D2"], ["D2", "D9"], [1, 3]);
    expect(score).toEqual({ recallAt: { "1": 0, "3": 0.5 }, reciprocalRank: 1 / 3 });
    expect(scoreRanking(["x"], ["y"], [5]).reciprocalRank).toBe(0);
    expect(summarizeRanking([score, scoreRanking(["D9"], ["D9"], [1, 3])], [1, 3])).toEqual({
      questions: 2,
      recallAt: { "1": 0.5, "3": 0.75 },
      mrr: (1 / 3 + 1) / 2,
    });
  });
});

describe("M3 round-trip", () => {
  it("counts exact, missing, changed and duplicated messages", () => {
    const [a, b, c] = [userText("a", 1), userText("b", 2), userText("c", 3)];
    const changed = { ...b, content: "b " } as AgentMessage;
    // Key order does not matter: canonical JSON.
    const reordered = { timestamp: 1, content: "a", role: "user" } as AgentMessage;
    const report = compareRoundTrip([a, b, c], [reordered, changed, c, c]);
    expect(report).toEqual({
      originals: 3,
      stored: 4,
      exact: 2,
      missing: 1,
      extra: 1,
      duplicates: 1,
      exactShare: 2 / 3,
    });
  });
});

describe("M4 needle survival", () => {
  const carrier = userText("Note. For the record, the vault token for the mail relay is NDL-AAAAAAAA.", 5);
  const probe = {
    code: "NDL-AAAAAAAA",
    sentence: "For the record, the vault token for the mail relay is NDL-AAAAAAAA.",
    factQuery: "What is the vault token for the mail relay?",
    carrier,
  };

  it("tells a verbatim needle from a code that only survived in a summary", () => {
    expect(needleInContext([carrier], probe)).toEqual({ verbatim: true, codeOnly: false });
    expect(needleInContext([userText("## Exact Identifiers\n- NDL-AAAAAAAA", 1)], probe)).toEqual({
      verbatim: false,
      codeOnly: true,
    });
    expect(needleInContext([userText("nothing here", 1)], probe)).toEqual({
      verbatim: false,
      codeOnly: false,
    });
  });

  it("finds the needle by code and by meaning, and checks the read-back is byte-exact", async () => {
    const altered = { ...carrier, timestamp: 6 };
    const recall = (stored: AgentMessage): RecallAdapter => ({
      search: async (query) => (query.includes("NDL") || query.includes("vault") ? ["1"] : []),
      read: async () => stored,
    });
    expect(await needleRecall(recall(carrier), probe)).toEqual({
      byCode: true,
      byFact: true,
      expandExact: true,
    });
    expect(await needleRecall(recall(altered), probe)).toEqual({
      byCode: true,
      byFact: true,
      expandExact: false,
    });
  });
});

describe("M5 confusable ordering", () => {
  it("matches difflib's SequenceMatcher ratio", () => {
    expect(sequenceRatio("abcd", "bcde")).toBe(0.75);
    expect(sequenceRatio("hello world", "hallo word")).toBeCloseTo(0.8571428571, 9);
    expect(sequenceRatio("abc", "xyz")).toBe(0);
    expect(sequenceRatio("", "")).toBe(1);
  });

  it("orders hits by time, so the i-th needle is found even when recall ranks it last", () => {
    const needles = ["NDL-AAAAAAAA", "NDL-BBBBBBBB", "NDL-CCCCCCCC"].map((code, index) => ({
      code,
      carrier: userText(`Heads up: the deploy key for staging is now ${code}.`, 10 * (index + 1)),
    }));
    const hits = [needles[2], needles[0], needles[1]].map((needle) => needle?.carrier as AgentMessage);
    expect(scoreConfusables(hits, { question: "q", needles })).toEqual({
      size: 3,
      ordered: 1,
      similarity: 1,
    });
    const missingFirst = scoreConfusables([needles[1]?.carrier, needles[2]?.carrier] as AgentMessage[], {
      question: "q",
      needles,
    });
    expect(missingFirst.ordered).toBe(0);
  });
});

/** An engine stub that forgets the tool call of every tool group: structurally broken output. */
const dropsToolCalls: ContextEngine = {
  info: { id: "drops-tool-calls", name: "Drops tool calls" },
  ingest: async () => ({ ingested: false }),
  assemble: async (params: AssembleParams): Promise<AssembleResult> => ({
    messages: params.messages.filter(
      (message) =>
        !(message.role === "assistant" && message.content.some((block) => block.type === "toolCall")),
    ),
    estimatedTokens: 0,
  }),
  compact: async () => ({ ok: true, compacted: false }),
};

/** An engine stub that ignores the budget. */
const ignoresBudget: ContextEngine = {
  ...dropsToolCalls,
  info: { id: "ignores-budget", name: "Ignores the budget" },
  assemble: async (params) => ({ messages: params.messages, estimatedTokens: 0 }),
};

const toolTurn = (): AgentMessage[] => [
  userText("Read the config.", 1),
  assistantToolCall("call_1", "read", { path: "config.json" }, 2),
  toolResult("call_1", "read", "port 8080", 3),
  assistantText("The port is 8080.", 4),
];

describe("M7 structural validity", () => {
  it("passes a well-formed request", () => {
    const pending = userText("And the host?", 5);
    expect(checkStructure([...toolTurn(), pending], { prompt: pending, unfinished: [] })).toEqual([]);
    const [user, call, result] = toolTurn() as [AgentMessage, AgentMessage, AgentMessage];
    // Mid tool loop: the prompt is in, the unfinished exchange ends the request.
    expect(checkStructure([user, call, result], { prompt: user, unfinished: [call, result] })).toEqual([]);
  });

  it("catches the orphan tool result of an engine that drops a tool call", async () => {
    const pending = userText("And the host?", 5);
    const { messages } = await dropsToolCalls.assemble({
      sessionId: "s",
      messages: toolTurn(),
      tokenBudget: 1_000,
    });
    const violations = checkStructure([...messages, pending], { prompt: pending, unfinished: [] });
    expect(violations.map((violation) => violation.kind)).toEqual(["orphan-tool-result", "role-order"]);
  });

  it("catches unanswered calls, a wrong first role, and a fresh tail that was changed", () => {
    const [user, call, result, answer] = toolTurn() as [
      AgentMessage,
      AgentMessage,
      AgentMessage,
      AgentMessage,
    ];
    const pending = userText("And the host?", 5);
    const atStart = { prompt: pending, unfinished: [] };
    const details = (messages: AgentMessage[], tail: Parameters<typeof checkStructure>[1]) =>
      checkStructure(messages, tail).map((violation) => `${violation.kind}: ${violation.detail}`);
    expect(details([user, call, pending], atStart)).toEqual(["unanswered-tool-call: call_1"]);
    expect(details([answer, pending], atStart)).toEqual(["first-role: assistant"]);
    expect(details([user, answer, userText("And the host? ", 5)], atStart)).toEqual([
      "fresh-tail: the prompt is not last",
      "fresh-tail: the turn's prompt was changed or left out",
    ]);
    // A summarized turn prefix: the prompt is gone though the unfinished exchange is last.
    expect(
      details([userText("<summary>…</summary>", 0), call, result], {
        prompt: user,
        unfinished: [call, result],
      }),
    ).toEqual(["fresh-tail: the turn's prompt was changed or left out"]);
  });

  it("ignores the calls of an aborted assistant message, which providers never send", () => {
    const [user, call] = toolTurn() as [AgentMessage, AssistantMessage];
    const aborted = { ...call, stopReason: "aborted" } as AgentMessage;
    const next = userText("Stop, do something else.", 5);
    expect(checkStructure([user, aborted, next], { prompt: next, unfinished: [] })).toEqual([]);
  });
});

describe("M6 budget compliance", () => {
  it("counts an engine that assembles over budget", async () => {
    const budget = countMessagesTokens(counter, toolTurn()) - 1;
    const { messages } = await ignoresBudget.assemble({
      sessionId: "s",
      messages: toolTurn(),
      tokenBudget: budget,
    });
    const report = summarizeBudget([
      { budget, tokens: countMessagesTokens(counter, messages), demand: budget + 1 },
    ]);
    expect(report.overBudget).toBe(1);
    expect(report.maxOvershoot).toBeCloseTo(1 / budget, 9);
  });

  it("reports overshoot, utilization under pressure and the ×1.3 calibration", () => {
    const report = summarizeBudget(
      [
        { budget: 100, tokens: 90, demand: 200 },
        { budget: 100, tokens: 110, demand: 300 },
        { budget: 100, tokens: 50, demand: 40 },
      ],
      2,
    );
    expect(report).toMatchObject({
      calls: 3,
      overBudget: 1,
      overBudgetShare: 1 / 3,
      pressured: 2,
      utilizationP50: 1,
      calibrated: { overBudget: 2, overBudgetShare: 2 / 3 },
      failedCalls: 2,
    });
    expect(report.maxOvershoot).toBeCloseTo(0.1, 9);
    expect(report.calibrated.maxOvershoot).toBeCloseTo(0.43, 9);
  });
});

describe("M8 prefix stability", () => {
  it("counts prefix-stable turns and the prefix kept across a compaction", () => {
    const [a, b, c, d] = [userText("a", 1), assistantText("b", 2), userText("c", 3), assistantText("d", 4)];
    expect(commonPrefixLength([a, b, c], [a, b, d])).toBe(2);
    const tracker = new PrefixStabilityTracker(counter);
    tracker.observe([a], false);
    tracker.observe([a, b, c], false);
    tracker.observe([b, c], false);
    tracker.observe([a, b, c, d], true);
    expect(tracker.result()).toEqual({
      pairs: 2,
      stable: 1,
      stableShare: 0.5,
      cacheableStable: 1,
      cacheableStableShare: 0.5,
      compactionEvents: 1,
      prefixTokensKeptMean: 0,
    });
  });

  it("counts the prompt tokens a prefix cache serves: the longest prefix shared with a recent request", () => {
    const [a, b, c] = [
      userText("a".repeat(40), 1),
      assistantText("b".repeat(80), 2),
      userText("c".repeat(40), 3),
    ];
    const tokens = (messages: AgentMessage[], system = "sys") =>
      messages.reduce((sum, message) => sum + counter.countMessage(message), counter.countText(system));
    const tracker = new PromptCacheTracker(counter);
    tracker.observe("sys", [a]);
    tracker.observe("sys", [a, b, c]);
    // Shares "sys, a, b" with the second request, more than with the first.
    tracker.observe("sys", [a, b, userText("new", 4)]);
    // Another system prompt: nothing is served.
    tracker.observe("other", [a, b]);
    const served = tokens([a]) + tokens([a, b]);
    const total =
      tokens([a]) + tokens([a, b, c]) + tokens([a, b, userText("new", 4)]) + tokens([a, b], "other");
    expect(tracker.result()).toEqual({
      requests: 4,
      promptTokens: total,
      cacheReadTokens: served,
      cacheReadShare: served / total,
      // The first request (nothing cached yet), the second (mostly new) and the last.
      callsMostlyMissed: 3,
    });
  });

  it("leaves a per-request block out of the cacheable figure, and only that block", () => {
    const [a, b, c, d] = [userText("a", 1), assistantText("b", 2), userText("c", 3), assistantText("d", 4)];
    const block = (text: string) => userText(`[block] ${text}`, 0);
    const isBlock = (message: AgentMessage) => JSON.stringify(message).includes("[block]");
    const tracker = new PrefixStabilityTracker(counter, isBlock);
    tracker.observe([a, block("for c")], false);
    tracker.observe([a, b, block("for d")], false);
    // A changed stable message breaks both figures.
    tracker.observe([c, b, d], false);
    expect(tracker.result()).toMatchObject({ pairs: 2, stable: 0, cacheableStable: 1 });
  });
});

describe("M12 compaction behaviour", () => {
  it("normalizes compactions per 100k tokens and says n/a without any", () => {
    const stats = { calls: 2, sourceMessages: 10, sourceTokens: 1_000, summaryTokens: 250, maxDepth: 2 };
    const report = summarizeCompactions(
      [
        { trigger: "threshold", phase: "replay", turn: 3, tokensBefore: 900, tokensAfter: 400 },
        { trigger: "precheck", phase: "replay", turn: 7, tokensBefore: 800, tokensAfter: 500 },
      ],
      50_000,
      stats,
    );
    expect(report).toMatchObject({
      compactions: 2,
      per100kTokens: 4,
      tokensRemovedMean: 400,
      compression: 0.25,
    });
    expect(summarizeCompactions([], 50_000, { ...stats, calls: 0, sourceTokens: 0 })).toMatchObject({
      compactions: 0,
      tokensRemovedMean: { na: "no compactions" },
      compression: { na: "no compactions" },
    });
  });
});
