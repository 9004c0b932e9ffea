import { describe, expect, it } from "vitest";
import {
  containsVerbatim,
  ensureIdentifiers,
  parseSummary,
  renderSummary,
  SUMMARY_SECTIONS,
} from "../../src/index.js";

const MODEL_SUMMARY = [
  "## Goal",
  "- Port the selector to the new theme API",
  "",
  "## Progress",
  "### Done",
  "- [x] Read theme.ts",
  "",
  "## Next Steps",
  "- Run the tests",
].join("\n");

describe("renderSummary and parseSummary", () => {
  it("renders every section in order, empty ones as (none)", () => {
    const text = renderSummary({ Goal: ["Ship it"], "Open TODOs": ["write docs", "two\nlines"] });
    const headings = text.split("\n").filter((line) => line.startsWith("## "));
    expect(headings).toEqual(SUMMARY_SECTIONS.map((section) => `## ${section}`));
    expect(text).toContain("## Goal\n- Ship it\n\n## Constraints & Rules\n- (none)");
    expect(text).toContain("## Open TODOs\n- write docs\n- two\n  lines");
  });

  it("parses what it renders back into the same items", () => {
    const items = { Goal: ["Ship it"], "Key Decisions": ["use o200k", "multi\nline item"], "Next Steps": [] };
    const parsed = parseSummary(renderSummary(items));
    expect(parsed.sections.Goal).toEqual(["Ship it"]);
    expect(parsed.sections["Key Decisions"]).toEqual(["use o200k", "multi\nline item"]);
    expect(parsed.sections["Next Steps"]).toEqual([]);
    expect(parsed.extraSections).toEqual([]);
  });

  it("recognises pi's and OpenClaw's heading names and keeps unknown sections aside", () => {
    const parsed = parseSummary(
      "Intro line\n## Constraints & Preferences\n- no new deps\n## Decisions\n- keep JSONL\n## Tool Failures\n- edit failed",
    );
    expect(parsed.preamble).toBe("Intro line");
    expect(parsed.sections["Constraints & Rules"]).toEqual(["no new deps"]);
    expect(parsed.sections["Key Decisions"]).toEqual(["keep JSONL"]);
    expect(parsed.extraSections).toEqual([{ heading: "Tool Failures", body: "- edit failed" }]);
  });

  it("treats ### lines as content of the enclosing section", () => {
    expect(parseSummary(MODEL_SUMMARY).sections.Progress).toEqual(["### Done", "[x] Read theme.ts"]);
  });
});

describe("containsVerbatim", () => {
  it.each([
    ["30s", "took 130s", false],
    ["30s", "took 30s.", true],
    ["v1.2.3", "pinned v1.2.30", false],
    ["v1.2.3", "pinned v1.2.3-beta", true],
    ["src/a.ts", "see src/a.tsx", false],
    ["/tmp", "mounted at /tmp/x", true],
    ["a+b(c)", "the regex a+b(c) matched", true],
    ["$HOME/.clew", "in $HOME/.clew now", true],
    ["日本", "日本語", false],
  ])("%s in %j is %s", (identifier, text, expected) => {
    expect(containsVerbatim(text, identifier)).toBe(expected);
  });
});

describe("ensureIdentifiers", () => {
  it("returns the summary unchanged when every identifier is present", () => {
    expect(ensureIdentifiers(MODEL_SUMMARY, ["theme.ts"])).toBe(MODEL_SUMMARY);
  });

  it("adds missing identifiers in a new section placed before Next Steps", () => {
    const tricky = ["C:\\Users\\me\\a.txt", "a+b(c)*", "$HOME/.clew", "30s", "v1.2.3", "100%"];
    const summary = `${MODEL_SUMMARY}\n- waited 130s for v1.2.30`;
    const result = ensureIdentifiers(summary, tricky);
    expect(result).toBe(
      [
        "## Goal",
        "- Port the selector to the new theme API",
        "",
        "## Progress",
        "### Done",
        "- [x] Read theme.ts",
        "",
        "## Exact Identifiers",
        ...tricky.map((identifier) => `- ${identifier}`),
        "",
        "## Next Steps",
        "- Run the tests",
        "- waited 130s for v1.2.30",
      ].join("\n"),
    );
    for (const identifier of tricky) expect(containsVerbatim(result, identifier)).toBe(true);
  });

  it("appends to an existing Exact Identifiers section and drops its (none) line", () => {
    const summary = renderSummary({ Goal: ["g"] });
    const result = ensureIdentifiers(summary, ["NDL-7K2M9QXA", "NDL-7K2M9QXA"]);
    expect(result).toContain("## Exact Identifiers\n- NDL-7K2M9QXA\n\n## Next Steps");
    expect(result.match(/NDL-7K2M9QXA/g)).toHaveLength(1);
    expect(parseSummary(result).sections["Exact Identifiers"]).toEqual(["NDL-7K2M9QXA"]);
  });

  it("creates the section at the end when no later section exists", () => {
    expect(ensureIdentifiers("## Goal\n- g\n\n", ["abc1234"])).toBe(
      "## Goal\n- g\n\n## Exact Identifiers\n- abc1234",
    );
    expect(ensureIdentifiers("", ["abc1234"])).toBe("## Exact Identifiers\n- abc1234");
  });

  it("lists at most the limit and counts the rest", () => {
    const identifiers = Array.from({ length: 205 }, (_, index) => `id_${String(index).padStart(6, "0")}`);
    const result = ensureIdentifiers("## Goal\n- g", identifiers);
    const items = parseSummary(result).sections["Exact Identifiers"] ?? [];
    expect(items).toHaveLength(201);
    expect(items.slice(0, 200)).toEqual(identifiers.slice(0, 200));
    expect(items[200]).toBe("…and 5 more identifiers");
    expect(ensureIdentifiers("x", identifiers, 2)).toBe(
      "x\n\n## Exact Identifiers\n- id_000000\n- id_000001\n- …and 203 more identifiers",
    );
  });
});
