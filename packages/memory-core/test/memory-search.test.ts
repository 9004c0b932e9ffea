import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  Bm25Index,
  createMemorySearchTool,
  listMemoryFiles,
  searchMemory,
  splitParagraphs,
  tokenize,
} from "../src/index.js";

let workspace: string;
beforeEach(async () => {
  workspace = await mkdtemp(join(tmpdir(), "clew-memory-"));
});
afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
});

async function notes(files: Record<string, string>): Promise<void> {
  for (const [path, text] of Object.entries(files)) {
    await mkdir(join(workspace, path, ".."), { recursive: true });
    await writeFile(join(workspace, path), text);
  }
}

describe("tokenize", () => {
  it("folds case and accents, drops function words, and splits Han characters", () => {
    expect(tokenize("The Café in Zürich is OPEN")).toEqual(["cafe", "zurich", "open"]);
    expect(tokenize("部署key在服务器")).toEqual(["部", "署", "key", "在", "服", "务", "器"]);
  });
});

describe("splitParagraphs", () => {
  it("splits on blank lines and headings, with 1-based line ranges and the heading above", () => {
    const text = "# Project\n\nintro line\n\n## Decisions\n- use postgres\n- keep redis\n\nlast";
    expect(splitParagraphs(text)).toEqual([
      { startLine: 3, endLine: 3, text: "intro line", heading: "Project" },
      { startLine: 6, endLine: 7, text: "- use postgres\n- keep redis", heading: "Decisions" },
      { startLine: 9, endLine: 9, text: "last", heading: "Decisions" },
    ]);
  });
});

describe("Bm25Index", () => {
  it("ranks a match of a rare term above a match of a common one", () => {
    const index = new Bm25Index(
      ["deploy notes", "server notes", "server logs", "server restarted"].map((text) => tokenize(text)),
    );
    expect(index.search(tokenize("deploy server")).map((match) => match.index)).toEqual([0, 1, 2, 3]);
    expect(index.search(tokenize("absent"))).toEqual([]);
  });

  it("ranks a short paragraph above a long one with the same match, and counts repeats with saturation", () => {
    const index = new Bm25Index(
      ["deploy key", `deploy key ${"filler ".repeat(40)}`, "deploy deploy deploy key", "other"].map((text) =>
        tokenize(text),
      ),
    );
    const scores = new Map(index.search(tokenize("deploy")).map((match) => [match.index, match.score]));
    expect(scores.get(0)).toBeGreaterThan(scores.get(1) ?? 0);
    expect(scores.get(2)).toBeGreaterThan(scores.get(0) ?? 0);
    // Saturation: three times the term is worth less than three times the score.
    expect(scores.get(2)).toBeLessThan(3 * (scores.get(0) ?? 0));
    expect(scores.has(3)).toBe(false);
  });
});

describe("searchMemory", () => {
  it("searches MEMORY.md and memory/**/*.md paragraphs, best first, with file and lines", async () => {
    await notes({
      "MEMORY.md": "# Preferences\n\nThe user prefers tabs over spaces.\n\nThe user lives in Lisbon.",
      "memory/2025-01-02.md":
        "## Deploy\n\nDeploy key rotated; new key id is dk-4821.\n\n## Food\n\nLunch at noon.",
      "memory/projects/clew.md": "Clew deploy uses the staging server first.",
      "notes.md": "deploy key outside memory: never searched",
      "memory/.hidden.md": "deploy key hidden",
    });
    expect(await listMemoryFiles(workspace)).toEqual([
      "MEMORY.md",
      "memory/2025-01-02.md",
      "memory/projects/clew.md",
    ]);
    const result = await searchMemory({ workspaceDir: workspace, query: "which deploy key?" });
    expect(result.filesSearched).toBe(3);
    expect(result.hits.map((hit) => [hit.path, hit.startLine, hit.endLine])).toEqual([
      ["memory/2025-01-02.md", 3, 3],
      ["memory/projects/clew.md", 1, 1],
    ]);
    expect(result.hits[0]).toMatchObject({
      heading: "Deploy",
      snippet: "Deploy key rotated; new key id is dk-4821.",
    });
    expect(result.hits[0]?.score).toBeGreaterThan(result.hits[1]?.score ?? Number.POSITIVE_INFINITY);
  });

  it("finds a paragraph by its heading, honours maxResults, and caps long snippets", async () => {
    await notes({
      "MEMORY.md": `## Decisions\n\nuse postgres\n\n${"word ".repeat(400)}decisions`,
    });
    const byHeading = await searchMemory({ workspaceDir: workspace, query: "decisions", maxResults: 1 });
    expect(byHeading.hits.map((hit) => [hit.startLine, hit.snippet])).toEqual([[3, "use postgres"]]);
    const both = await searchMemory({ workspaceDir: workspace, query: "decisions" });
    expect(both.hits).toHaveLength(2);
    const long = both.hits.find((hit) => hit.startLine === 5);
    expect(long?.snippet.length).toBeLessThan(800);
    expect(long?.snippet).toContain("[memory_get MEMORY.md from 5 for the rest]");
  });

  it("says so when there are no notes or no matches", async () => {
    const tool = createMemorySearchTool({ workspaceDir: workspace });
    const empty = await tool.execute("call-1", { query: "anything" });
    expect(empty.content[0]).toEqual({
      type: "text",
      text: "No notes yet: MEMORY.md and memory/*.md do not exist in the workspace.",
    });
    await notes({ "MEMORY.md": "The user likes tea." });
    const none = await tool.execute("call-2", { query: "coffee" });
    expect(none.content[0]).toEqual({ type: "text", text: 'No notes match "coffee" (1 files searched).' });
    const hit = await tool.execute("call-3", { query: "tea" });
    expect(hit.content[0]).toMatchObject({
      text: expect.stringMatching(/^1\. MEMORY\.md:1-1 \(score [\d.]+\)\nThe user likes tea\.$/),
    });
    expect(hit.details.hits).toHaveLength(1);
  });
});
