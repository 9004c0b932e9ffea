import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  type AgentMessage,
  buildSessionContext,
  type CompactionEntry,
  charEstimateTokenCounter,
  compactTranscript,
  planCompaction,
  type TranscriptEntry,
} from "../../src/index.js";
import { JsonlTranscriptStore } from "../../src/transcript/jsonl/jsonl-transcript-store.js";
import { toEntries, toolCallTurn } from "./entry-builders.js";

const counter = charEstimateTokenCounter;

function roleOf(entry: TranscriptEntry | undefined): string | undefined {
  return entry?.type === "message" ? (entry.message as { role: string }).role : undefined;
}

function keptFrom(branch: TranscriptEntry[], firstKeptEntryId: string | undefined): TranscriptEntry[] {
  const cut = branch.findIndex((entry) => entry.id === firstKeptEntryId);
  return cut < 0 ? [] : branch.slice(cut);
}

function expectPairsKept(kept: TranscriptEntry[]): void {
  const calls = new Set<string>();
  for (const entry of kept) {
    if (entry.type !== "message") continue;
    const message = entry.message as AgentMessage;
    if (message.role === "assistant") {
      for (const block of message.content) if (block.type === "toolCall") calls.add(block.id);
    }
    if (message.role === "toolResult") expect(calls.has(message.toolCallId)).toBe(true);
  }
}

/** One huge message from the user (a pasted log), answered. */
function pastedLog(chars: number): AgentMessage[] {
  const [user, answer] = toolCallTurn(9, 0, 0) as [AgentMessage, AgentMessage];
  return [{ ...user, content: `log: ${"L".repeat(chars)}` } as AgentMessage, answer];
}

describe("planCompaction with a limit on what stays raw", () => {
  it("keeps no more than the limit whenever a place to cut allows it, never splitting a tool call from its result", () => {
    const turns = fc.array(
      fc.record({ calls: fc.integer({ min: 0, max: 3 }), resultChars: fc.integer({ min: 0, max: 40_000 }) }),
      { minLength: 1, maxLength: 12 },
    );
    fc.assert(
      fc.property(turns, fc.integer({ min: 500, max: 20_000 }), (spec, maxKeptTokens) => {
        const branch = toEntries(
          spec.flatMap((turn, index) => toolCallTurn(index, turn.calls, turn.resultChars)),
        );
        const planned = planCompaction(branch, { keepRecentTokens: maxKeptTokens, maxKeptTokens, counter });
        if (!planned.ok) return;
        const kept = keptFrom(branch, planned.plan.firstKeptEntryId);
        expect(roleOf(kept[0])).not.toBe("toolResult");
        expectPairsKept(kept);
        const keptTokens = kept.reduce(
          (sum, entry) =>
            sum + (entry.type === "message" ? counter.countMessage(entry.message as AgentMessage) : 0),
          0,
        );
        expect(planned.plan.keptTokens).toBe(keptTokens);
        if (keptTokens > maxKeptTokens) {
          // Over the limit only when no later place to cut exists: the kept part is one step.
          const laterCut = kept
            .slice(1)
            .some((entry) => roleOf(entry) !== undefined && roleOf(entry) !== "toolResult");
          expect(laterCut).toBe(false);
        }
        const summarized = planned.plan.history.length + planned.plan.turnPrefix.length;
        expect(summarized + kept.length).toBe(branch.length);
      }),
      { numRuns: 100 },
    );
  });

  it("moves the cut into the recent part when the recent window holds huge tool results", () => {
    const branch = toEntries([
      ...toolCallTurn(0, 0, 0),
      ...toolCallTurn(1, 3, 40_000),
      ...toolCallTurn(2, 1, 8_000),
    ]);
    const unlimited = planCompaction(branch, { keepRecentTokens: 16_000, counter });
    expect(unlimited.ok && unlimited.plan.keptTokens).toBeGreaterThan(30_000);

    const limited = planCompaction(branch, { keepRecentTokens: 16_000, maxKeptTokens: 16_000, counter });
    expect(limited.ok).toBe(true);
    if (!limited.ok) return;
    expect(limited.plan.keptTokens).toBeLessThanOrEqual(16_000);
    // The oldest place within the limit: right after the three huge results, at the turn's answer.
    expect(branch.find((entry) => entry.id === limited.plan.firstKeptEntryId)).toMatchObject({
      message: { role: "assistant", content: [{ type: "text", text: "done 1" }] },
    });
    expect(limited.plan.turnPrefix.map((message) => message.role)).toEqual([
      "user",
      "assistant",
      "toolResult",
      "toolResult",
      "toolResult",
    ]);
  });

  it("keeps only the newest step when that step alone is over the limit", () => {
    const branch = toEntries([...toolCallTurn(0, 0, 0), ...toolCallTurn(1, 4, 40_000).slice(0, -1)]);
    const planned = planCompaction(branch, { keepRecentTokens: 16_000, maxKeptTokens: 16_000, counter });
    expect(planned.ok).toBe(true);
    if (!planned.ok) return;
    const kept = keptFrom(branch, planned.plan.firstKeptEntryId);
    expect(kept.map(roleOf)).toEqual(["assistant", "toolResult", "toolResult", "toolResult", "toolResult"]);
    expect(planned.plan.turnPrefix).toHaveLength(1);
  });

  it("keeps nothing when one message that is no tool result is over the limit", () => {
    const branch = toEntries(pastedLog(100_000).slice(0, 1));
    const planned = planCompaction(branch, { keepRecentTokens: 16_000, maxKeptTokens: 16_000, counter });
    expect(planned).toMatchObject({ ok: true, plan: { firstKeptEntryId: undefined, keptTokens: 0 } });
    expect(planCompaction(branch, { keepRecentTokens: 16_000, counter }).ok).toBe(false);
  });
});

describe("compactTranscript toward a small budget", () => {
  let home: string;
  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), "clew-kept-limit-"));
  });
  afterEach(async () => {
    await rm(home, { recursive: true, force: true });
  });

  it("summarizes a message larger than half the budget with a compaction that points at itself", async () => {
    const store = new JsonlTranscriptStore({ home, fsync: "never" });
    const transcript = await store.create({ agentId: "main", sessionId: "s1" });
    const messages = [...toolCallTurn(0, 1, 2_000), ...pastedLog(100_000).slice(0, 1)];
    await transcript.append(messages.map((message) => ({ type: "message" as const, message })));
    // A first compaction keeps only the log; the second has nothing left to cut before it.
    const options = {
      summarize: async () => ({ summary: "## Goal\nread the log", summarizerId: "fixed" }),
      preserveIdentifiers: (summary: string) => summary,
      counter,
    };
    for (let round = 0; round < 2; round++) {
      const result = await compactTranscript(transcript, { tokenBudget: 32_000 }, options);
      expect(result).toMatchObject({ ok: true, compacted: true });
    }
    const compaction = transcript.entries().at(-1) as CompactionEntry;
    expect(compaction.firstKeptEntryId).toBe(compaction.id);
    const context = buildSessionContext(transcript.branch());
    expect(context.messages.map((message) => (message as { role: string }).role)).toEqual([
      "compactionSummary",
    ]);
    expect(transcript.entries().filter((entry) => entry.type === "message")).toHaveLength(messages.length);
    await transcript.close();
  });
});
