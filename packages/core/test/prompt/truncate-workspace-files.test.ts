import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  cutHeadAndTail,
  InvalidOptionError,
  truncateWorkspaceFiles,
  type WorkspaceFile,
} from "../../src/index.js";

function present(name: string, content: string): WorkspaceFile {
  return { name, path: `/ws/${name}`, missing: false, content };
}

function missing(name: string): WorkspaceFile {
  return { name, path: `/ws/${name}`, missing: true };
}

/** Text whose every position is recognizable: "0000 0001 0002 …". */
function numbered(chars: number): string {
  let text = "";
  for (let index = 0; text.length < chars; index++) text += `${String(index).padStart(4, "0")},`;
  return text.slice(0, chars);
}

describe("truncateWorkspaceFiles: per-file cap", () => {
  it("injects a file within the cap unchanged, without trailing whitespace", () => {
    const { files } = truncateWorkspaceFiles([present("AGENTS.md", "rules\n\n  \n")], {
      maxChars: 100,
      totalMaxChars: 1_000,
    });
    expect(files[0]).toEqual({
      name: "AGENTS.md",
      path: "/ws/AGENTS.md",
      status: "OK",
      rawChars: 5,
      injectedChars: 5,
      content: "rules",
      causes: [],
    });
  });

  it("keeps 70 % head and 20 % tail around a marker naming the file and the omitted size", () => {
    const raw = numbered(10_000);
    const { files } = truncateWorkspaceFiles([present("TOOLS.md", raw)], {
      maxChars: 2_000,
      totalMaxChars: 60_000,
    });
    const file = files[0];
    expect(file?.status).toBe("TRUNCATED");
    expect(file?.causes).toEqual(["per-file-limit"]);
    expect(file?.rawChars).toBe(10_000);
    expect(file?.injectedChars).toBeLessThanOrEqual(2_000);
    expect(file?.content.startsWith(raw.slice(0, 1_400))).toBe(true);
    expect(file?.content.endsWith(raw.slice(-400))).toBe(true);
    expect(file?.content).toContain("[...truncated, read TOOLS.md for full content...]");
    expect(file?.content).toContain(
      "…(truncated TOOLS.md: kept 1400+400 chars of 10000; 8200 chars omitted)…",
    );
  });

  it("shrinks head and tail when the cap is too small for the standard split plus marker", () => {
    const raw = numbered(5_000);
    const content = cutHeadAndTail(raw, 300, "SOUL.md");
    expect(content.length).toBeLessThanOrEqual(300);
    expect(content).toContain("read SOUL.md for full content");
    const [head] = content.split("\n\n");
    expect(raw.startsWith(head ?? "x")).toBe(true);
  });

  it("never exceeds the limit and never splits a surrogate pair", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 3_000 }),
        fc.integer({ min: 0, max: 6_000 }),
        fc.constantFrom("a", "😀", "ab\n", "漢"),
        (limit, length, filler) => {
          const text = filler.repeat(length);
          const content = cutHeadAndTail(text, limit, "AGENTS.md");
          expect(content.length).toBeLessThanOrEqual(limit);
          expect(content).not.toMatch(
            /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/,
          );
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("truncateWorkspaceFiles: total cap", () => {
  it("spends the total budget in file order and cuts the file that runs out of it", () => {
    const { files, analysis } = truncateWorkspaceFiles(
      [present("AGENTS.md", numbered(600)), present("SOUL.md", numbered(600)), present("USER.md", "u")],
      { maxChars: 1_000, totalMaxChars: 1_000 },
    );
    expect(files.map((file) => file.status)).toEqual(["OK", "TRUNCATED", "TRUNCATED"]);
    expect(files[1]?.causes).toEqual(["total-limit"]);
    expect(files[1]?.injectedChars).toBeLessThanOrEqual(400);
    expect(files[1]?.content).toContain("read SOUL.md for full content");
    // Less than 64 chars are left for USER.md, so it is left out.
    expect(files[2]).toMatchObject({ rawChars: 1, injectedChars: 0, content: "", causes: ["total-limit"] });
    expect(files.reduce((sum, file) => sum + file.content.length, 0)).toBeLessThanOrEqual(1_000);
    expect(analysis).toEqual({
      maxChars: 1_000,
      totalMaxChars: 1_000,
      truncatedFiles: 2,
      perFileLimitFiles: 0,
      totalLimitFiles: 2,
      rawChars: 1_201,
      injectedChars: files.reduce((sum, file) => sum + file.injectedChars, 0),
    });
  });

  it("names both causes when a file is over max/file and the budget left is smaller still", () => {
    const { files } = truncateWorkspaceFiles(
      [present("AGENTS.md", numbered(700)), present("TOOLS.md", numbered(900))],
      {
        maxChars: 800,
        totalMaxChars: 1_000,
      },
    );
    expect(files[1]?.causes).toEqual(["per-file-limit", "total-limit"]);
  });

  it("reports a missing file as MISSING with zero sizes, its expected-path line charged to the budget", () => {
    const { files, analysis } = truncateWorkspaceFiles(
      [missing("SOUL.md"), present("USER.md", numbered(200))],
      {
        maxChars: 1_000,
        totalMaxChars: 90,
      },
    );
    expect(files[0]).toMatchObject({
      status: "MISSING",
      rawChars: 0,
      injectedChars: 0,
      content: "[MISSING] Expected at: /ws/SOUL.md",
    });
    expect(files[1]?.status).toBe("TRUNCATED");
    expect(files[1]?.content).toBe("");
    expect(analysis.truncatedFiles).toBe(1);
  });

  it("keeps the reason an existing file could not be read on its MISSING entry", () => {
    const { files } = truncateWorkspaceFiles(
      [{ name: "SOUL.md", path: "/ws/SOUL.md", missing: true, problem: "permission denied" }],
      { maxChars: 1_000, totalMaxChars: 1_000 },
    );
    expect(files[0]).toMatchObject({ status: "MISSING", problem: "permission denied" });
  });

  it("rejects limits that are not positive integers, naming the setting", () => {
    expect(() => truncateWorkspaceFiles([], { maxChars: 0, totalMaxChars: 10 })).toThrow(InvalidOptionError);
    expect(() => truncateWorkspaceFiles([], { maxChars: 10, totalMaxChars: 1.5 })).toThrow(
      /agents\.defaults\.bootstrapTotalMaxChars/,
    );
  });

  it("does not mutate the input files", () => {
    const content = numbered(500);
    const input = [Object.freeze(present("AGENTS.md", content))];
    truncateWorkspaceFiles(input, { maxChars: 100, totalMaxChars: 1_000 });
    expect(input[0]).toEqual(present("AGENTS.md", content));
  });
});
