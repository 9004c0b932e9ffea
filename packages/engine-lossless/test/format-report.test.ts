import { describe, expect, it } from "vitest";
import { formatPass, formatSummarySpend } from "../src/inspect/format-report.js";
import type { StoredCompactionPass } from "../src/store/store.js";

const NOW = Date.UTC(2026, 10, 30, 12);

function pass(summaryIds: string[], prepared?: number): StoredCompactionPass {
  return {
    sessionId: "s",
    passId: "pass_1",
    trigger: "maintain",
    startedAt: NOW,
    durationMs: 12.4,
    targetTokens: 1_000,
    budgetTokens: 2_000,
    summarizer: "extractive",
    viewVersionBefore: 1,
    viewVersionAfter: 2,
    level: "leaf",
    outcome: "compacted",
    tokensBefore: 4_200,
    tokensAfter: 1_100,
    inputs: { messages: 10, summaries: 0, tokens: 4_000 },
    outputs: {
      leaf: summaryIds.length,
      condensed: 0,
      tokens: 300,
      ...(prepared === undefined ? {} : { prepared }),
    },
    summaryIds,
    writtenBy: ["extractive"],
  };
}

describe("a compaction pass as one line", () => {
  it("counts its summaries in the singular or the plural", () => {
    expect(formatPass(pass(["sum_a"]), NOW)).toBe(
      "pass_1 just now maintain compacted (leaf): 4,200 → 1,100 tokens (−3,100), 1 summary, 12 ms",
    );
    expect(formatPass(pass(["sum_a", "sum_b"]), NOW)).toContain("(−3,100), 2 summaries, 12 ms");
  });
});

describe("how many of a pass's summaries were prepared", () => {
  it("says so when some or all were, and nothing for records that did not count them", () => {
    expect(formatPass(pass(["sum_a", "sum_b", "sum_c"], 2), NOW)).toContain(
      "3 summaries (2 prepared), 12 ms",
    );
    expect(formatPass(pass(["sum_a", "sum_b"], 2), NOW)).toContain("2 summaries (all prepared), 12 ms");
    expect(formatPass(pass(["sum_a", "sum_b"], 0), NOW)).toContain("2 summaries (0 prepared), 12 ms");
    expect(formatPass(pass([], 0), NOW)).toContain("0 summaries, 12 ms");
  });

  it("counts the leaves it upgraded apart", () => {
    const upgraded = (ids: string[], prepared: number, upgrades: number) => {
      const record = pass(ids, prepared);
      return { ...record, outputs: { ...record.outputs, upgraded: upgrades } };
    };
    expect(formatPass(upgraded(["sum_a", "sum_b", "sum_c"], 1, 2), NOW)).toContain(
      "3 summaries (1 prepared, 2 upgraded), 12 ms",
    );
    expect(formatPass(upgraded(["sum_a", "sum_b", "sum_c"], 0, 1), NOW)).toContain(
      "3 summaries (0 prepared, 1 upgraded), 12 ms",
    );
    expect(formatPass(upgraded(["sum_a", "sum_b"], 2, 0), NOW)).toContain(
      "2 summaries (all prepared), 12 ms",
    );
  });
});

describe("the status line of a session's summaries", () => {
  const spend = (
    summarizer: string,
    debtChunks: number,
    prepared: number,
    upgrades: number,
    leased: number,
  ) => ({
    sessionId: "s",
    available: true,
    summarizer,
    limitTokens: 2_000_000,
    windowHours: 24,
    window: {
      spentTokens: 12_345,
      calls: 1,
      debtTokens: debtChunks * 900,
      debtChunks,
      remainingTokens: 1_987_655,
    },
    lifetime: { spentTokens: 12_345, calls: 1, debtTokens: debtChunks * 900, debtChunks },
    jobs: { prepared, upgrades, leased },
  });

  it("shows spend against the budget, the debt and the jobs, leaving out what is zero", () => {
    expect(formatSummarySpend(spend("model:p/m", 0, 0, 0, 0))).toBe(
      "Summaries: model:p/m · 12,345 of 2,000,000 tokens spent in the last 24 h (1 call)",
    );
    expect(formatSummarySpend(spend("model:p/m", 2, 3, 1, 1))).toBe(
      "Summaries: model:p/m · 12,345 of 2,000,000 tokens spent in the last 24 h (1 call) · " +
        "debt: 2 summaries written extractively for lack of budget (1,800 tokens) · " +
        "3 prepared (1 upgrade) waiting for the next compaction · 1 being prepared",
    );
    expect(formatSummarySpend(spend("extractive", 0, 2, 0, 0))).toBe(
      "Summaries: extractive (no model calls) · 2 prepared waiting for the next compaction",
    );
  });
});
