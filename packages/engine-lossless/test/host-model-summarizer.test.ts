import {
  EXTRACTIVE_SUMMARIZER_ID,
  InvalidOptionError,
  type LlmCompleteParams,
  type LlmCompleteResult,
  type SummaryUsage,
} from "@clew/core";
import { describe, expect, it } from "vitest";
import { resolveOptions } from "../src/options.js";
import { spendReportOf } from "../src/prepare/preparation.js";
import { HostModelSummarizer } from "../src/summarizer/host-model-summarizer.js";
import { userText } from "./support/conversations.js";

/** A host model call that records what it was asked and answers `result`. */
function hostCall(result: LlmCompleteResult, ref?: string) {
  const asked: LlmCompleteParams[] = [];
  return {
    asked,
    llm: {
      ...(ref === undefined ? {} : { ref }),
      complete: async (params: LlmCompleteParams) => {
        asked.push(params);
        return result;
      },
    },
  };
}

const input = (onUsage?: (usage: SummaryUsage) => void) => ({
  messages: [userText("deploy service-3 to staging", 1)],
  maxTokens: 300,
  ...(onUsage === undefined ? {} : { onUsage }),
});

describe("the host's model as the engine's summarizer", () => {
  it("is the extractive summarizer until a hook offers the host's model call", async () => {
    const summarizer = new HostModelSummarizer();
    expect(summarizer.id).toBe(EXTRACTIVE_SUMMARIZER_ID);
    summarizer.offer(undefined);
    summarizer.offer({ llm: { complete: "not a function" } as never });
    expect(summarizer.id).toBe(EXTRACTIVE_SUMMARIZER_ID);
    expect(await summarizer.summarize(input())).toContain("service-3");
  });

  it("calls the host's model once offered, named by its ref, and reports the usage", async () => {
    const host = hostCall(
      {
        text: "## Goal\n- deploy service-3",
        usage: { input: 100, cacheRead: 40, cacheWrite: 10, output: 20 },
      },
      "anthropic/claude-haiku",
    );
    const summarizer = new HostModelSummarizer();
    summarizer.offer({ llm: host.llm });
    expect(summarizer.id).toBe("model:anthropic/claude-haiku");
    const usages: SummaryUsage[] = [];
    const text = await summarizer.summarize(input((usage) => usages.push(usage)));
    expect(text).toContain("deploy service-3");
    expect(usages).toEqual([{ inputTokens: 150, outputTokens: 20 }]);
    expect(host.asked).toHaveLength(1);
    expect(host.asked[0]?.maxTokens).toBe(300);
    expect(host.asked[0]?.systemPrompt).toContain("summarization assistant");
    expect(JSON.stringify(host.asked[0]?.messages)).toContain("deploy service-3 to staging");

    // The first offer stays: a later one changes nothing.
    summarizer.offer({ llm: hostCall({ text: "other" }, "other/model").llm });
    expect(summarizer.id).toBe("model:anthropic/claude-haiku");
  });

  it("is named model:host when the host does not name its model, and reports no usage it lacks", async () => {
    const host = hostCall({ text: "## Goal\n- deploy" });
    const summarizer = new HostModelSummarizer();
    summarizer.offer({ llm: host.llm });
    expect(summarizer.id).toBe("model:host");
    const usages: SummaryUsage[] = [];
    await summarizer.summarize(input((usage) => usages.push(usage)));
    expect(usages).toEqual([]);
  });

  it("passes the cost on, and leaves the count to the engine when the host reports half of it", async () => {
    const priced = new HostModelSummarizer();
    priced.offer({
      llm: hostCall({ text: "## Goal\n- a", usage: { input: 10, output: 5, costUsd: 0.002 } }).llm,
    });
    const usages: SummaryUsage[] = [];
    await priced.summarize(input((usage) => usages.push(usage)));
    expect(usages).toEqual([{ inputTokens: 10, outputTokens: 5, costUsd: 0.002 }]);
    const half = new HostModelSummarizer();
    half.offer({ llm: hostCall({ text: "## Goal\n- a", usage: { input: 10 } }).llm });
    await half.summarize(input((usage) => usages.push(usage)));
    expect(usages).toHaveLength(1);
  });

  it("is reported as awaited until bound, so /status shows the ledger", async () => {
    const options = resolveOptions({ summarizer: "host-model" });
    const before = await spendReportOf(undefined, "no store", "s", options);
    expect(before.summarizer).toMatch(
      /^host model \(none offered yet: extractive until a turn brings one\)$/,
    );
    (options.summarizer as HostModelSummarizer).offer({ llm: hostCall({ text: "x" }, "p/m").llm });
    expect((await spendReportOf(undefined, "no store", "s", options)).summarizer).toBe("model:p/m");
  });

  it("is chosen by the option host-model, and other values are refused", () => {
    expect(resolveOptions({ summarizer: "host-model" }).summarizer).toBeInstanceOf(HostModelSummarizer);
    expect(() => resolveOptions({ summarizer: "model" as never })).toThrow(InvalidOptionError);
    expect(() => resolveOptions({ summarizer: "model" as never })).toThrow(/lossless\.summarizer/);
  });
});
