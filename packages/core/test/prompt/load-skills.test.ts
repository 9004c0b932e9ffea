import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { defaultSkillsDirs, loadSkills, parseSkillFrontMatter } from "../../src/index.js";
import { makeTempDir, writeTree } from "./prompt-fixtures.js";

let root: { path: string; dispose: () => Promise<void> };
beforeEach(async () => {
  root = await makeTempDir("clew-skills-");
});
afterEach(async () => {
  await root.dispose();
});

describe("loadSkills", () => {
  it("lists name, description and SKILL.md location of each skill folder, by folder name", async () => {
    const dir = join(root.path, "skills");
    await writeTree(dir, {
      "weather/SKILL.md":
        "---\nname: weather\ndescription: Get the forecast for a city.\n---\n# Weather\nBody.",
      "alpha/SKILL.md": '---\ndescription: "Alpha: quoted, with \\"escapes\\""\nname: alpha-skill\n---\n',
      "notes.txt": "not a skill folder",
      "empty-folder/README.md": "no SKILL.md here",
    });
    const loaded = await loadSkills({ dirs: [dir] });
    expect(loaded.problems).toEqual([]);
    expect(loaded.skills).toEqual([
      {
        name: "alpha-skill",
        description: 'Alpha: quoted, with "escapes"',
        location: join(dir, "alpha", "SKILL.md"),
      },
      {
        name: "weather",
        description: "Get the forecast for a city.",
        location: join(dir, "weather", "SKILL.md"),
      },
    ]);
  });

  it("reports a broken SKILL.md with file and reason, skips it and keeps the others", async () => {
    const dir = join(root.path, "skills");
    await writeTree(dir, {
      "good/SKILL.md": "---\nname: good\ndescription: Works.\n---\n",
      "no-front-matter/SKILL.md": "# Just a heading\n",
      "unclosed/SKILL.md": "---\nname: unclosed\ndescription: never ends\n",
      "no-description/SKILL.md": "---\nname: quiet\n---\n",
      "bad-quote/SKILL.md": '---\nname: q\ndescription: "starts but never\n---\n',
      "mapping/SKILL.md": "---\nname: m\ndescription:\n  en: English\n  es: Español\n---\n",
    });
    await writeTree(dir, { "is-dir/SKILL.md/inner.txt": "a folder named SKILL.md" });
    const loaded = await loadSkills({ dirs: [dir] });
    expect(loaded.skills.map((skill) => skill.name)).toEqual(["good"]);
    const reasons = Object.fromEntries(
      loaded.problems.map((problem) => [problem.file.slice(dir.length + 1), problem.reason]),
    );
    expect(Object.keys(reasons).sort()).toEqual([
      "bad-quote/SKILL.md",
      "is-dir/SKILL.md",
      "mapping/SKILL.md",
      "no-description/SKILL.md",
      "no-front-matter/SKILL.md",
      "unclosed/SKILL.md",
    ]);
    expect(reasons["no-front-matter/SKILL.md"]).toMatch(/must start with a --- line/);
    expect(reasons["unclosed/SKILL.md"]).toMatch(/not closed/);
    expect(reasons["no-description/SKILL.md"]).toMatch(/no "description"/);
    expect(reasons["bad-quote/SKILL.md"]).toMatch(/quoted "description" value is not closed/);
    expect(reasons["mapping/SKILL.md"]).toMatch(/must be text, not a list or mapping/);
    expect(reasons["is-dir/SKILL.md"]).toMatch(/cannot read/);
    expect(loaded.problems.find((problem) => problem.file.includes("mapping"))?.line).toBe(3);
  });

  it("lets an earlier dir win a name and reports a duplicate name inside one dir", async () => {
    const workspaceDir = join(root.path, "ws");
    const home = join(root.path, "home");
    await writeTree(workspaceDir, {
      "skills/pdf/SKILL.md": "---\nname: pdf\ndescription: Workspace PDF skill.\n---\n",
      "skills/pdf-copy/SKILL.md": "---\nname: pdf\ndescription: A second pdf in the same dir.\n---\n",
    });
    await writeTree(home, {
      "skills/pdf/SKILL.md": "---\nname: pdf\ndescription: Home PDF skill.\n---\n",
      "skills/git/SKILL.md": "---\nname: git\ndescription: Home git skill.\n---\n",
    });
    const dirs = defaultSkillsDirs({ workspaceDir, home });
    expect(dirs).toEqual([join(workspaceDir, "skills"), join(home, "skills")]);
    const loaded = await loadSkills({ dirs });
    expect(loaded.skills.map((skill) => `${skill.name}: ${skill.description}`)).toEqual([
      "pdf: Workspace PDF skill.",
      "git: Home git skill.",
    ]);
    expect(loaded.problems).toEqual([
      {
        file: join(workspaceDir, "skills", "pdf-copy", "SKILL.md"),
        reason: `skill name "pdf" is already used by ${join(workspaceDir, "skills", "pdf", "SKILL.md")}`,
      },
    ]);
  });

  it("treats missing skills dirs as empty", async () => {
    expect(await loadSkills({ dirs: [join(root.path, "nope"), join(root.path, "file.txt", "x")] })).toEqual({
      skills: [],
      problems: [],
    });
  });
});

describe("parseSkillFrontMatter", () => {
  it("reads folded, literal and multi-line plain values and skips other keys", () => {
    const text = [
      "---",
      "# a comment",
      "metadata:",
      "  name: nested-name-is-ignored",
      "license: MIT",
      "description: >",
      "  Folded lines",
      "  join with spaces.",
      "name: |",
      "  literal",
      "---",
    ].join("\n");
    expect(parseSkillFrontMatter(text)).toEqual({
      ok: true,
      name: "literal",
      description: "Folded lines join with spaces.",
    });
    const plain = "---\nname: p # trailing comment\ndescription: first line\n  second line\n---\n";
    expect(parseSkillFrontMatter(plain)).toEqual({
      ok: true,
      name: "p",
      description: "first line second line",
    });
  });

  it("reads single-quoted values with doubled quotes and CRLF files with a BOM", () => {
    const text = "\uFEFF---\r\nname: 'it''s'\r\ndescription: 'Say ''hi''.'\r\n---\r\n";
    expect(parseSkillFrontMatter(text)).toEqual({ ok: true, name: "it's", description: "Say 'hi'." });
  });

  it("reports duplicate keys and lines that are not key: value, with the line number", () => {
    expect(parseSkillFrontMatter("---\nname: a\nname: b\n---\n")).toEqual({
      ok: false,
      line: 3,
      reason: 'duplicate key "name"',
    });
    expect(parseSkillFrontMatter("---\nname: a\njust words\n---\n")).toMatchObject({ ok: false, line: 3 });
  });
});
