import type { CompactResult } from "@clew/core";
import { describe, expect, it } from "vitest";
import { formatCompactionResult, summarizeCompactResult } from "../../src/commands/index.js";

const window = { contextUsed: 3400, contextWindow: 128_000 };

describe("formatCompactionResult", () => {
  it.each([
    [
      { ok: true, compacted: true, tokensBefore: 12_000, tokensAfter: 3400 },
      window,
      "⚙️ Compacted (12k → 3.4k) • Context 3.4k/128k (3%)",
    ],
    [
      { ok: true, compacted: true, tokensBefore: 12_000 },
      window,
      "⚙️ Compacted (12k before) • Context 3.4k/128k (3%)",
    ],
    [{ ok: true, compacted: true }, window, "⚙️ Compacted • Context 3.4k/128k (3%)"],
    [
      { ok: true, compacted: true, tokensBefore: 50_000, tokensAfter: 9000 },
      { contextWindow: 200_000 },
      "⚙️ Compacted (50k → 9.0k) • Context 9.0k/200k (5%)",
    ],
    [
      {
        ok: true,
        compacted: false,
        reason: "nothing to compact: the whole history fits in the recent window",
      },
      window,
      "⚙️ Compaction skipped: nothing compactable in this session yet • Context 3.4k/128k (3%)",
    ],
    [
      { ok: true, compacted: false, reason: "already compacted: nothing new since the last compaction" },
      window,
      "⚙️ Compaction skipped: session was already compacted recently • Context 3.4k/128k (3%)",
    ],
    [
      { ok: true, compacted: false, reason: "Below threshold" },
      window,
      "⚙️ Compaction skipped: context is below the compaction threshold • Context 3.4k/128k (3%)",
    ],
    [
      { ok: true, compacted: false, reason: "no real conversation messages" },
      window,
      "⚙️ Compaction skipped: no real conversation messages yet • Context 3.4k/128k (3%)",
    ],
    [
      { ok: true, compacted: false, reason: "deferred to background context-engine maintenance" },
      window,
      "⚙️ Compaction skipped: deferred to background context-engine maintenance • Context 3.4k/128k (3%)",
    ],
    [{ ok: true, compacted: false }, {}, "⚙️ Compaction skipped"],
    [
      { ok: false, compacted: false, reason: "Compaction timed out after 180s" },
      {},
      "⚙️ Compaction failed: Compaction timed out after 180s",
    ],
    [
      { ok: false, compacted: false, reason: "nothing to compact: odd" },
      { contextWindow: 128_000 },
      "⚙️ Compaction failed: nothing to compact: odd • Context ?/128k",
    ],
  ])("formats %j as the golden line", (result, figures, expected) => {
    expect(formatCompactionResult(result, figures)).toBe(expected);
  });
});

describe("summarizeCompactResult", () => {
  it("lifts the token figures out of core's nested result", () => {
    const result: CompactResult = {
      ok: true,
      compacted: true,
      result: { summary: "s", tokensBefore: 12_000, tokensAfter: 3400 },
    };
    expect(summarizeCompactResult(result)).toEqual({
      ok: true,
      compacted: true,
      tokensBefore: 12_000,
      tokensAfter: 3400,
    });
    expect(summarizeCompactResult({ ok: false, compacted: false, reason: "boom" })).toEqual({
      ok: false,
      compacted: false,
      reason: "boom",
    });
  });
});
