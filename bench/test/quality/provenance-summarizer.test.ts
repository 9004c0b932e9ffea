import { charEstimateTokenCounter } from "@clew/core";
import { assistantText, toolResult, userText } from "@clew/plugin-sdk/testing";
import { describe, expect, it } from "vitest";
import { Provenance } from "../../suites/quality/harness/provenance.js";
import {
  createProvenanceSummarizer,
  labelledSources,
  summaryLine,
} from "../../suites/quality/harness/provenance-summarizer.js";

const adopted = userText("I adopted a dog named Pixel. She is two years old.", 1);
const build = toolResult(
  "call_1",
  "bash",
  "build failed with ERR_BUILD_42 in step A; retry id RETRY-77AB",
  3,
);
const messages = [adopted, assistantText("That is lovely! Send pictures.", 2), build];
const provenance = new Provenance(messages.map((message, index) => ({ id: `D1:${index + 1}`, message })));
const sourceIdOf = (message: Parameters<typeof provenance.idOf>[0]) => provenance.idOf(message);

describe("the provenance stub summarizer", () => {
  it("writes each message's first sentence and identifiers under its source label", () => {
    expect(summaryLine(adopted, { sourceIdOf })).toBe("⟦D1:1⟧ I adopted a dog named Pixel.");
    expect(summaryLine(build, { sourceIdOf })).toBe(
      "⟦D1:3⟧ build failed with ERR_BUILD_42 in step A; retry id RETRY-77AB",
    );
    expect(summaryLine(userText("Plain words. Then CODE_123456 later.", 9), { sourceIdOf })).toBe(
      "⟦?⟧ Plain words. [CODE_123456]",
    );
  });

  it("lists exactly the sources it holds, dropping the oldest to fit the cap", async () => {
    const roomy = createProvenanceSummarizer({
      counter: charEstimateTokenCounter,
      sourceIdOf,
      maxTokens: 10_000,
    });
    const full = await roomy.summarize({ messages, maxTokens: 10_000 });
    expect([...labelledSources(full)]).toEqual(["D1:1", "D1:2", "D1:3"]);
    expect(full).toContain("## Progress");
    expect(full).toContain("summary level 1");

    const tight = createProvenanceSummarizer({
      counter: charEstimateTokenCounter,
      sourceIdOf,
      maxTokens: 10_000,
    });
    const cut = await tight.summarize({ messages, maxTokens: charEstimateTokenCounter.countText(full) - 5 });
    expect([...labelledSources(cut)]).toEqual(["D1:2", "D1:3"]);
    expect(charEstimateTokenCounter.countText(cut)).toBeLessThan(charEstimateTokenCounter.countText(full));
  });

  it("carries the previous summary's lines forward and counts the chain", async () => {
    const summarizer = createProvenanceSummarizer({
      counter: charEstimateTokenCounter,
      sourceIdOf,
      maxTokens: 10_000,
    });
    const first = await summarizer.summarize({ messages: messages.slice(0, 1), maxTokens: 10_000 });
    const second = await summarizer.summarize({
      messages: messages.slice(1),
      previousSummary: first,
      maxTokens: 10_000,
    });
    expect([...labelledSources(second)]).toEqual(["D1:1", "D1:2", "D1:3"]);
    expect(second).toContain("summary level 2");
    expect(summarizer.stats).toMatchObject({ calls: 2, sourceMessages: 3, maxDepth: 2 });
    expect(
      await summarizer.summarize({ messages: messages.slice(1), previousSummary: first, maxTokens: 10_000 }),
    ).toBe(second);
  });

  it("rejects with the signal's reason once aborted", async () => {
    const summarizer = createProvenanceSummarizer({
      counter: charEstimateTokenCounter,
      sourceIdOf,
      maxTokens: 100,
    });
    const controller = new AbortController();
    const reason = new Error("stop");
    controller.abort(reason);
    await expect(summarizer.summarize({ messages, maxTokens: 100, signal: controller.signal })).rejects.toBe(
      reason,
    );
  });
});
