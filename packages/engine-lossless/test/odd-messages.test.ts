import { type AgentMessage, charEstimateTokenCounter } from "@clew/core";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { clipMessage } from "../src/assemble/clip-message.js";
import { messageDigest } from "../src/ingest/message-identity.js";
import { readingBody } from "../src/recall/message-text.js";
import { assistantText, fillerText, userText } from "./support/conversations.js";
import { recallToolsOf } from "./support/recall.js";
import { TempEngines } from "./support/temp-engine.js";

const engines = new TempEngines();
afterAll(() => engines.cleanup());

/**
 * Messages a host may hand over that do not have the shape their role promises: hosts differ,
 * transcripts get edited by hand, and older formats linger. None may fail a write or a turn.
 */
const oddMessage = fc.oneof(
  fc.record({ role: fc.constant("assistant"), content: fc.string() }),
  fc.record({ role: fc.constant("toolResult"), toolCallId: fc.string(), content: fc.string() }),
  fc.record({ role: fc.constant("user"), content: fc.constantFrom(null, 42, true, {}) }),
  fc.record({
    role: fc.constantFrom("user", "assistant", "toolResult"),
    content: fc.array(
      fc.oneof(
        fc.record({ type: fc.constant("text") }),
        fc.record({ type: fc.constant("text"), text: fc.oneof(fc.integer(), fc.constant(null)) }),
        fc.record({ type: fc.constant("toolCall"), arguments: fc.string() }),
        fc.record({ type: fc.string(), value: fc.string() }),
        fc.string(),
        fc.constantFrom(null, 7, true),
      ),
      { maxLength: 3 },
    ),
  }),
  fc.record({ role: fc.string(), note: fc.string({ unit: "grapheme" }) }),
  fc.record({ content: fc.string() }),
);

/** A conversation with odd messages mixed in (one after each of the first turns), a second apart. */
function conversationWith(odd: readonly object[]): AgentMessage[] {
  const messages: AgentMessage[] = [];
  for (let turn = 0; turn < 24; turn++) {
    messages.push(userText(`Task ${turn}: ${fillerText(200, turn + 1)}`, 0));
    const extra = odd[turn];
    if (extra !== undefined) messages.push({ ...extra } as AgentMessage);
    messages.push(assistantText(`Done with task ${turn}.`, 0));
  }
  const start = Date.UTC(2025, 6, 1);
  return messages.map((message, index) => ({ ...message, timestamp: start + index * 1_000 }) as AgentMessage);
}

describe("messages of the wrong shape", () => {
  it("are stored, compacted, assembled within budget and read back byte for byte", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(oddMessage, { minLength: 1, maxLength: 6 }), async (odd) => {
        const engine = await engines.engine();
        const messages = conversationWith(odd);
        const half = Math.floor(messages.length / 2);
        await engine.afterTurn({
          sessionId: "s",
          sessionFile: "memory:s",
          messages: messages.slice(0, half),
          prePromptMessageCount: 0,
        });
        await engine.afterTurn({
          sessionId: "s",
          sessionFile: "memory:s",
          messages,
          prePromptMessageCount: half,
        });
        const compacted = await engine.compact({ sessionId: "s", tokenBudget: 2_000, force: true });
        expect(compacted.ok).toBe(true);
        const assembled = await engine.assemble({
          sessionId: "s",
          messages,
          tokenBudget: 2_000,
          prompt: "What was task 3 about?",
        });
        expect(assembled.estimatedTokens).toBeLessThanOrEqual(2_000);
        const { search, read } = recallToolsOf(engine, "s");
        const hits = (await search.execute("1", { query: "Task 3" })).details.hits as Array<{
          snippet: string;
        }>;
        expect(hits.some((hit) => hit.snippet.includes("Task 3:"))).toBe(true);
        const ids = messages.map((_, index) => `m${index + 1}`);
        const page = await read.execute("1", { messageIds: ids, maxTokens: 200_000 });
        const back = (page.details.messages as Array<{ message: unknown }>).map((entry) =>
          messageDigest(entry.message),
        );
        expect(back).toEqual(messages.map(messageDigest));
        await engine.dispose();
      }),
      { numRuns: 40 },
    );
  });
});

describe("an assistant turn holding blocks that are not objects", () => {
  const odd = {
    role: "assistant",
    content: [null, 7, { type: "text", text: "long answer ".repeat(400) }],
    timestamp: 1,
  } as unknown as AgentMessage;

  it("reads as its blocks' JSON and its text", () => {
    expect(readingBody(odd).split("\n").slice(0, 2)).toEqual(["null", "7"]);
  });

  it("is clipped to fit like any other, its odd blocks kept", () => {
    const clipped = clipMessage(odd, 200, charEstimateTokenCounter, "m2");
    expect(charEstimateTokenCounter.countMessage(clipped as AgentMessage)).toBeLessThanOrEqual(200);
    expect((clipped as unknown as { content: unknown[] }).content.slice(0, 2)).toEqual([null, 7]);
  });
});
