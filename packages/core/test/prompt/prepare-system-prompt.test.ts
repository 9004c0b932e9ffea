import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { prepareSystemPrompt, resolvePromptSettings } from "../../src/index.js";
import { makeTempDir, NOW, runtime, tools, writeTree } from "./prompt-fixtures.js";

let root: { path: string; dispose: () => Promise<void> };
let workspaceDir: string;
let home: string;
beforeEach(async () => {
  root = await makeTempDir("clew-prepare-");
  workspaceDir = join(root.path, "workspace");
  home = join(root.path, "home");
  await writeTree(workspaceDir, {
    "AGENTS.md": `# Agents\n${"rule line\n".repeat(300)}`,
    "SOUL.md": "Warm and brief.",
    "BOOTSTRAP.md": "Introduce yourself.",
    "skills/notes/SKILL.md": "---\nname: notes\ndescription: Keep notes.\n---\n",
  });
  await writeTree(home, {
    "skills/broken/SKILL.md": "no front matter",
    "skills/calendar/SKILL.md": "---\nname: calendar\ndescription: Manage events.\n---\n",
  });
});
afterEach(async () => {
  await root.dispose();
});

describe("prepareSystemPrompt", () => {
  it("loads files and skills from disk, applies the caps and builds the prompt", async () => {
    const settings = resolvePromptSettings({ agents: { defaults: { bootstrapMaxChars: 1_000 } } });
    const prepared = await prepareSystemPrompt({
      workspaceDir,
      firstRun: true,
      home,
      tools,
      settings,
      runtime,
      now: NOW,
    });
    expect(prepared.workspaceFiles.files.map((file) => `${file.name}:${file.status}`)).toEqual([
      "AGENTS.md:TRUNCATED",
      "SOUL.md:OK",
      "TOOLS.md:MISSING",
      "IDENTITY.md:MISSING",
      "USER.md:MISSING",
      "HEARTBEAT.md:MISSING",
      "BOOTSTRAP.md:OK",
    ]);
    expect(prepared.skills.skills.map((skill) => skill.name)).toEqual(["notes", "calendar"]);
    expect(prepared.skills.problems).toEqual([
      expect.objectContaining({ file: join(home, "skills", "broken", "SKILL.md") }),
    ]);
    expect(prepared.prompt.text).toContain("## BOOTSTRAP.md\nIntroduce yourself.");
    expect(prepared.prompt.text).toContain("[...truncated, read AGENTS.md for full content...]");
    expect(prepared.prompt.truncationWarning).toEqual({
      mode: "once",
      shown: true,
      state: { lastSignature: expect.any(String) },
    });
  });

  it("passes the warning state on so a later run with the same truncation stays quiet", async () => {
    const settings = resolvePromptSettings({ agents: { defaults: { bootstrapMaxChars: 1_000 } } });
    const options = { workspaceDir, firstRun: false, home, tools, settings, runtime, now: NOW };
    const first = await prepareSystemPrompt(options);
    const second = await prepareSystemPrompt({
      ...options,
      warningState: first.prompt.truncationWarning.state,
    });
    expect([first.prompt.truncationWarning.shown, second.prompt.truncationWarning.shown]).toEqual([
      true,
      false,
    ]);
  });
});
