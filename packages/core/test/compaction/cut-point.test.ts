import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { charEstimateTokenCounter, planCompaction, type TranscriptEntry } from "../../src/index.js";
import { toEntries, toolCallTurn } from "./entry-builders.js";

const counter = charEstimateTokenCounter;

function roleOf(entry: TranscriptEntry | undefined): string | undefined {
  return entry?.type === "message" ? (entry.message as { role: string }).role : undefined;
}

const turnsArbitrary = fc.array(
  fc.record({ calls: fc.integer({ min: 0, max: 3 }), resultChars: fc.integer({ min: 0, max: 4_000 }) }),
  { minLength: 1, maxLength: 25 },
);

describe("planCompaction", () => {
  it("never separates a tool call from its result and keeps at least the recent budget", () => {
    fc.assert(
      fc.property(turnsArbitrary, fc.integer({ min: 1, max: 6_000 }), (turns, keepRecentTokens) => {
        const branch = toEntries(
          turns.flatMap((turn, index) => toolCallTurn(index, turn.calls, turn.resultChars)),
        );
        const planned = planCompaction(branch, { keepRecentTokens, counter });
        if (!planned.ok) return;
        const cut = branch.findIndex((entry) => entry.id === planned.plan.firstKeptEntryId);
        expect(roleOf(branch[cut])).not.toBe("toolResult");
        const kept = branch.slice(cut);
        const keptCalls = new Set<string>();
        for (const entry of kept) {
          if (entry.type !== "message") continue;
          const message = entry.message as { role: string; content: unknown; toolCallId?: string };
          if (message.role === "assistant" && Array.isArray(message.content)) {
            for (const block of message.content as Array<{ type: string; id?: string }>) {
              if (block.type === "toolCall" && block.id) keptCalls.add(block.id);
            }
          }
          if (message.role === "toolResult") expect(keptCalls.has(message.toolCallId ?? "")).toBe(true);
        }
        expect(planned.plan.keptTokens).toBeGreaterThanOrEqual(keepRecentTokens);
        const summarized = planned.plan.history.length + planned.plan.turnPrefix.length;
        expect(summarized + kept.length).toBe(branch.length);
        expect(summarized).toBeGreaterThan(0);
      }),
      { numRuns: 300 },
    );
  });

  it("refuses when the whole history fits in the recent window", () => {
    const branch = toEntries(toolCallTurn(0, 1, 100));
    const planned = planCompaction(branch, { keepRecentTokens: 100_000, counter });
    expect(planned).toEqual({
      ok: false,
      reason: "nothing to compact: the whole history fits in the recent window",
    });
  });

  it("right after a compaction, refuses when the kept messages fit and recompacts them when they do not", () => {
    const branch = toEntries(toolCallTurn(0, 1, 4_000));
    branch.push({
      type: "compaction",
      id: "c1",
      parentId: branch.at(-1)?.id ?? null,
      timestamp: new Date(0).toISOString(),
      summary: "s",
      firstKeptEntryId: "e1",
      tokensBefore: 10,
    });
    expect(planCompaction(branch, { keepRecentTokens: 100_000, counter }).ok).toBe(false);
    const again = planCompaction(branch, { keepRecentTokens: 10, counter });
    expect(again.ok).toBe(true);
    if (again.ok) expect(again.plan.previous?.id).toBe("c1");
  });

  it("summarizes the start of a split turn separately from older history", () => {
    const messages = [...toolCallTurn(0, 0, 0), ...toolCallTurn(1, 3, 4_000)];
    const branch = toEntries(messages);
    // Keep roughly the last two tool results: the cut falls inside turn 1.
    const planned = planCompaction(branch, { keepRecentTokens: 1_500, counter });
    expect(planned.ok).toBe(true);
    if (!planned.ok) return;
    expect(planned.plan.history.map((message) => (message as { role: string }).role)).toEqual([
      "user",
      "assistant",
    ]);
    expect((planned.plan.turnPrefix[0] as { role: string; content: string }).content).toBe("task 1");
    expect(roleOf(branch.find((entry) => entry.id === planned.plan.firstKeptEntryId))).toBe("assistant");
  });

  it("continues from the previous compaction's kept messages and its summary", () => {
    const first = toEntries([...toolCallTurn(0, 1, 2_000), ...toolCallTurn(1, 1, 2_000)]);
    const compaction: TranscriptEntry = {
      type: "compaction",
      id: "c1",
      parentId: first.at(-1)?.id ?? null,
      timestamp: new Date(0).toISOString(),
      summary: "earlier work",
      firstKeptEntryId: "e5",
      tokensBefore: 100,
    };
    const later = toEntries([...toolCallTurn(2, 1, 2_000), ...toolCallTurn(3, 1, 2_000)], first.length + 1);
    const branch = [...first, compaction, ...later];
    const planned = planCompaction(branch, { keepRecentTokens: 600, counter });
    expect(planned.ok).toBe(true);
    if (!planned.ok) return;
    expect(planned.plan.previous?.id).toBe("c1");
    expect((planned.plan.history[0] as { content: string }).content).toBe("task 1");
  });
});
