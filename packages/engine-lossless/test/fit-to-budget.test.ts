import { type AgentMessage, charEstimateTokenCounter } from "@clew/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type AssemblyEntry,
  fitToBudget,
  isOmissionNote,
  recallClause,
} from "../src/assemble/fit-to-budget.js";
import { assistantToolCall, toolResult, userText } from "./support/conversations.js";

const counter = charEstimateTokenCounter;

function entry(message: AgentMessage, label?: string): AssemblyEntry {
  const startsGroup = (message as unknown as { role: string }).role !== "toolResult";
  return { message, tokens: counter.countMessage(message), startsGroup, label };
}

/** Stored history, then a running turn: its prompt and `steps` tool calls with results. */
function entriesWithTurn(steps: number, resultChars = 400): { entries: AssemblyEntry[]; prompt: number } {
  const entries = [entry(userText("earlier question", 1), "m1"), entry(userText("earlier answer", 2), "m2")];
  const prompt = entries.length;
  entries.push(entry(userText("fix every failing test", 10)));
  for (let step = 0; step < steps; step++) {
    entries.push(
      entry(assistantToolCall(`c${step}`, "exec", { command: `test ${step}` }, 11 + step * 2)),
      entry(toolResult(`c${step}`, "exec", `${step} `.repeat(resultChars / 2), 12 + step * 2)),
    );
  }
  return { entries, prompt };
}

function sent(messages: readonly AgentMessage[]): number {
  return messages.reduce((sum, message) => sum + counter.countMessage(message), 0);
}

describe("fitToBudget with a pinned entry", () => {
  it("keeps the pin after the note, then the newest whole groups that fit beside it", () => {
    const { entries, prompt } = entriesWithTurn(20);
    const result = fitToBudget(entries, 1_000, counter, undefined, prompt);
    expect(isOmissionNote(result.messages[0])).toBe(true);
    expect(result.messages[1]).toBe(entries[prompt]?.message);
    const newest = result.messages.slice(2);
    expect(newest).toEqual(entries.slice(-newest.length).map((item) => item.message));
    expect(newest.length % 2).toBe(0);
    expect(result.tokens).toBe(sent(result.messages));
    expect(result.tokens).toBeLessThanOrEqual(1_000);
    // Every entry is either sent or counted as left out; the pin is not left out.
    expect(result.omitted).toBe(entries.length - 1 - newest.length);
    expect(result).toMatchObject({ cutAt: entries.length - newest.length, pinKept: true });
  });

  it("changes nothing when the pin is the newest entry, or everything fits", () => {
    const { entries } = entriesWithTurn(20);
    const last = entries.length - 1;
    expect(fitToBudget(entries, 1_000, counter, undefined, last)).toEqual(
      fitToBudget(entries, 1_000, counter),
    );
    const small = entriesWithTurn(1);
    expect(fitToBudget(small.entries, 100_000, counter, undefined, small.prompt).messages).toEqual(
      small.entries.map((item) => item.message),
    );
  });

  it("keeps the pin beside a newest group shortened to fit", () => {
    const { entries, prompt } = entriesWithTurn(3, 8_000);
    const result = fitToBudget(entries, 800, counter, undefined, prompt);
    expect(result.messages[1]).toBe(entries[prompt]?.message);
    expect(result.clipped).toBeGreaterThan(0);
    expect(result.tokens).toBe(sent(result.messages));
    expect(result.tokens).toBeLessThanOrEqual(800);
  });

  it("never goes over the budget, whatever the sizes, the pin and the budget", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 12 }),
        fc.integer({ min: 2, max: 3_000 }),
        fc.integer({ min: 1, max: 2_000 }),
        fc.integer({ min: 0, max: 30 }),
        (steps, resultChars, budget, pinAt) => {
          const { entries } = entriesWithTurn(steps, resultChars);
          const pinned = Math.min(pinAt, entries.length - 1);
          const result = fitToBudget(entries, budget, counter, undefined, pinned);
          expect(result.tokens).toBe(sent(result.messages));
          expect(result.tokens).toBeLessThanOrEqual(budget);
          // `cutAt` and `pinKept` say which entries were left out: those before the cut, but the pin.
          const pin = result.pinKept ? 1 : 0;
          expect(result.omitted).toBe(result.cutAt - pin);
          const body = result.messages.filter((message) => !isOmissionNote(message));
          if (body.length > 0) expect(body.length).toBe(entries.length - result.cutAt + pin);
          if (result.pinKept) expect(body[0]).toBe(entries[pinned]?.message);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("the note's word on reading back what it leaves out", () => {
  it("sends the model to the recall tools only for what is stored", () => {
    expect(recallClause({ messages: 3, summaries: 1, unstored: 0 })).toBe(
      "recall_search and recall_read return them verbatim.",
    );
    expect(recallClause({ messages: 0, summaries: 0, unstored: 4 })).toBe(
      "This turn's are stored when it ends, and recall_search and recall_read find them from then on.",
    );
    expect(recallClause({ messages: 2, summaries: 0, unstored: 4 })).toBe(
      "recall_search and recall_read return the earlier ones verbatim; this turn's are stored when it ends, and recall_search and recall_read find them from then on.",
    );
  });
});
