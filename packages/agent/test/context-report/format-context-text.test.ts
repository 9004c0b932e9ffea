import { readFile, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { formatContextDetail, formatContextHelp, formatContextList } from "../../src/context-report/index.js";
import { file, sampleEstimateReport, sampleRunReport } from "./fixtures.js";

const goldenDir = fileURLToPath(new URL("./golden/", import.meta.url));

/**
 * Byte-exact comparison with a checked-in file. `CLEW_UPDATE_GOLDEN=1` rewrites the file instead,
 * for a deliberate format change (review the diff before committing).
 */
async function expectGolden(name: string, actual: string): Promise<void> {
  const path = `${goldenDir}${name}`;
  if (process.env.CLEW_UPDATE_GOLDEN === "1") await writeFile(path, actual);
  const expected = await readFile(path, "utf8");
  expect(actual).toBe(expected);
}

describe("/context list and detail golden output", () => {
  it("prints the list of a run report with truncated and missing files and more than 30 tools", async () => {
    await expectGolden("list-run.txt", formatContextList(sampleRunReport(), { window: 200_000 }));
  });

  it("prints the detail of a run report with an engine addition and the caller's session tokens", async () => {
    const report = sampleRunReport({ engineAdditionChars: 1_840 });
    await expectGolden(
      "detail-run.txt",
      formatContextDetail(report, { window: 200_000, sessionTokens: 51_200 }),
    );
  });

  it("prints the list of an estimate with the caller's workspace and unknown session tokens", async () => {
    const options = { window: 128_000, workspaceDir: "/home/dev/new-project", sessionTokens: null };
    await expectGolden("list-estimate.txt", formatContextList(sampleEstimateReport(), options));
  });

  it("prints the detail of an estimate without a provider figure", async () => {
    const options = { window: 128_000, workspaceDir: "/home/dev/new-project" };
    await expectGolden("detail-estimate.txt", formatContextDetail(sampleEstimateReport(), options));
  });
});

describe("/context text details", () => {
  it("labels the system prompt with the report's source", () => {
    expect(formatContextList(sampleRunReport(), { window: 1 })).toContain("System prompt (run): ");
    expect(formatContextList(sampleEstimateReport(), { window: 1 })).toContain("System prompt (estimate): ");
  });

  it("caps the list's tool names at 30 and counts the rest", () => {
    const text = formatContextList(sampleRunReport(), { window: 200_000 });
    const toolsLine = text.split("\n").find((line) => line.startsWith("Tools: "));
    expect(toolsLine?.endsWith(", … (+6 more)")).toBe(true);
    expect(toolsLine?.split(", ").length).toBe(31);
  });

  it("shows every tool without a count when there are 30 or fewer", () => {
    const text = formatContextList(sampleRunReport({ toolCount: 30 }), { window: 200_000 });
    expect(text).not.toContain("more)");
    const detail = formatContextDetail(sampleRunReport({ toolCount: 30 }), { window: 200_000 });
    expect(detail).not.toContain("more tools)");
  });

  it("orders detail's top tools by schema size, largest first", () => {
    const lines = formatContextDetail(sampleRunReport(), { window: 200_000 }).split("\n");
    const start = lines.indexOf("Top tools (schema size):");
    expect(lines.slice(start + 1, start + 3)).toEqual([
      "- browser: 9,812 chars (~2,453 tok)",
      "- exec: 6,240 chars (~1,560 tok)",
    ]);
  });

  it("adds an Other history line only when the report has other messages", () => {
    const report = sampleRunReport({
      history: {
        messages: 3,
        chars: { user: 10, assistant: 20, toolResults: 0, summaries: 0, other: 44 },
        tokens: { user: 3, assistant: 5, toolResults: 0, summaries: 0, other: 12 },
      },
    });
    expect(formatContextList(report, { window: 1000 })).toContain("- Other: 44 chars (~12 tok)");
    expect(formatContextList(sampleRunReport(), { window: 1000 })).not.toContain("- Other:");
  });

  it("counts a file cut by both limits under both causes", () => {
    const report = sampleRunReport({
      files: [file("TOOLS.md", "TRUNCATED", 40_000, 9_000, ["per-file-limit", "total-limit"])],
    });
    const text = formatContextList(report, { window: 1000 });
    expect(text).toContain("1 file(s) truncated (40,000 raw chars -> 9,000 injected chars).");
    expect(text).toContain("Causes: 1 file(s) exceeded max/file; 1 file(s) hit max/total.");
  });

  it("prints no warning when no file was truncated", () => {
    const report = sampleRunReport({ files: [file("AGENTS.md", "OK", 100, 100)] });
    expect(formatContextDetail(report, { window: 1000 })).not.toContain("⚠");
  });

  it("names the configured engine when another one ran", () => {
    const report = { ...sampleRunReport(), engine: { configured: "lossless", effective: "legacy" } };
    expect(formatContextList(report, { window: 1000 })).toContain(
      "Context engine: legacy (configured: lossless)",
    );
  });

  it("reads the session tokens from the report unless the caller knows better", () => {
    expect(formatContextList(sampleRunReport(), { window: 8_000 })).toContain(
      "Session tokens: 52,418 / ctx=8,000",
    );
    expect(formatContextList(sampleRunReport(), { window: 0, sessionTokens: 9 })).toContain(
      "Session tokens: 9 / ctx=?",
    );
  });

  it("says when the provider's figure leaves nothing untracked", () => {
    const detail = formatContextDetail(sampleRunReport({ contextTokens: 1_000 }), { window: 200_000 });
    expect(detail).toContain("Untracked provider/runtime overhead: not observed in the provider's figure");
  });

  it("explains the modes in the help text", () => {
    const help = formatContextHelp();
    expect(help.split("\n")[0]).toBe("🧠 /context");
    for (const mode of ["list", "detail", "json", "map"]) expect(help).toContain(`/context ${mode}`);
  });
});
