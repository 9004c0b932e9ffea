import type { Summarizer } from "@clew/core";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { longConversation } from "./support/conversations.js";
import { recallToolsOf } from "./support/recall.js";
import { TempEngines } from "./support/temp-engine.js";

const engines = new TempEngines();
afterAll(() => engines.cleanup());

/** What a summarizer (a model behind it) may answer: anything, or nothing in time. */
const answer = fc.oneof(
  fc.string(),
  fc.constant(""),
  fc.constant("   \n  "),
  fc.string({ minLength: 20_000, maxLength: 60_000 }),
  fc.constantFrom(undefined, null, 42, { text: "an object" }, ["a list"]),
  fc.constant("throw"),
  fc.constant("hang"),
);

function summarizerAnswering(answers: readonly unknown[]): Summarizer {
  let call = 0;
  return {
    id: "model:test/odd",
    summarize: async ({ signal }) => {
      const next = answers[call++ % answers.length];
      if (next === "throw") throw new Error("the model failed");
      if (next === "hang")
        return new Promise((_, reject) => signal?.addEventListener("abort", () => reject(signal.reason)));
      return next as string;
    },
  };
}

describe("a summarizer that answers anything", () => {
  it("never stops compaction from reaching its target, or loses a message", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(answer, { minLength: 1, maxLength: 4 }), async (answers) => {
        const engine = await engines.engine({
          summarizer: summarizerAnswering(answers),
          summarizerTimeoutMs: 50,
          prepareSummaries: false,
        });
        const messages = longConversation(30);
        await engine.afterTurn({
          sessionId: "s",
          sessionFile: "memory:s",
          messages,
          prePromptMessageCount: 0,
        });
        const result = await engine.compact({ sessionId: "s", tokenBudget: 4_000, force: true });
        expect(result).toMatchObject({ ok: true, compacted: true });
        const assembled = await engine.assemble({ sessionId: "s", messages, tokenBudget: 4_000 });
        expect(assembled.estimatedTokens).toBeLessThanOrEqual(4_000);
        const back: string[] = [];
        let cursor: string | undefined;
        do {
          const page = await recallToolsOf(engine, "s").read.execute("1", {
            to: new Date(8.64e15).toISOString(),
            maxTokens: 32_000,
            ...(cursor === undefined ? {} : { cursor }),
          });
          const details = page.details as {
            messages: Array<{ id: string; message: unknown }>;
            nextCursor?: string;
          };
          for (const entry of details.messages) if (back.at(-1) !== entry.id) back.push(entry.id);
          cursor = details.nextCursor;
        } while (cursor !== undefined);
        expect(back).toEqual(messages.map((_, index) => `m${index + 1}`));
        await engine.dispose();
      }),
      { numRuns: 20 },
    );
  });
});
