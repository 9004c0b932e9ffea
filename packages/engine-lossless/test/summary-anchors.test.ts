import { MemoryLogger, type Summarizer } from "@clew/core";
import { describe, expect, it } from "vitest";
import { mergeAnchors } from "../src/compaction/anchors.js";
import { writeSummaryText } from "../src/compaction/write-summary-text.js";
import { userText } from "./support/conversations.js";

function fixedSummarizer(text: string): Summarizer {
  return { id: "fixed", summarize: async () => text };
}

async function summaryWith(text: string, anchors: string[], maxTokens: number): Promise<string> {
  const written = await writeSummaryText({
    summarizer: fixedSummarizer(text),
    messages: [userText("anything", 1)],
    anchors,
    maxTokens,
    timeoutMs: 5_000,
    logger: new MemoryLogger(),
  });
  return written.text;
}

describe("summary anchors", () => {
  it("merges anchor lists oldest first, each with at most 8 distinct links in ascending order", () => {
    const lists = [
      [
        { value: "src/a.ts", messages: [9, 3, 3, 5] },
        { value: "ERR_X", messages: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] },
        { value: "v1.2.3", messages: [2, 6] },
      ],
      [
        { value: "src/b.ts", messages: [4] },
        { value: "src/a.ts", messages: [1, 9, 20] },
        { value: "v1.2.3", messages: [1, 7] },
      ],
    ];
    const before = structuredClone(lists);
    expect(mergeAnchors(lists)).toEqual([
      { value: "src/a.ts", messages: [1, 3, 5, 9, 20] },
      { value: "ERR_X", messages: [1, 2, 3, 4, 5, 6, 7, 8] },
      { value: "v1.2.3", messages: [1, 2, 6, 7] },
      { value: "src/b.ts", messages: [4] },
    ]);
    expect(lists).toEqual(before);
  });

  it("writes the first missing anchors that fit the summary's length, never more than 60", async () => {
    const anchors = Array.from({ length: 200 }, (_, index) => `ID-${1000 + index}`);
    const text = "## Goal\n- keep ID-1000 and ID-1002 in mind";
    const roomy = await summaryWith(text, anchors, 10_000);
    const listed = roomy.split("\n").filter((line) => /^- ID-\d+$/.test(line));
    const missing = anchors.filter((anchor) => anchor !== "ID-1000" && anchor !== "ID-1002");
    expect(listed).toEqual(missing.slice(0, 60).map((anchor) => `- ${anchor}`));
    // Room for the text, the section heading and three anchors (10 characters each with "- ").
    const tight = await summaryWith(text, anchors, Math.ceil((text.length + 60 + 3 * 10) / 4));
    expect(tight.split("\n").filter((line) => /^- ID-\d+$/.test(line))).toHaveLength(3);
    expect(await summaryWith(text, anchors, 10)).toBe(text);
  });
});
