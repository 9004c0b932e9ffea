import { describe, expect, it } from "vitest";
import {
  buildSystemPrompt,
  DEFAULT_IDENTITY_LINE,
  type InjectedWorkspaceFile,
  InvalidOptionError,
  withEngineAddition,
} from "../../src/index.js";
import { promptInput } from "./prompt-fixtures.js";

function positionsInText(text: string, markers: string[]): number[] {
  return markers.map((marker) => text.indexOf(marker));
}

describe("buildSystemPrompt", () => {
  it("puts the sections in the fixed order, the engine addition first", () => {
    const prompt = buildSystemPrompt(promptInput({ engineAddition: "  Recall: the user prefers tea.  " }));
    expect(prompt.sections.map((section) => section.name)).toEqual([
      "Engine addition",
      "Identity",
      "Tooling",
      "Skills",
      "Workspace",
      "Time",
      "Runtime",
      "Project Context",
    ]);
    expect(prompt.text).toBe(prompt.sections.map((section) => section.text).join("\n\n"));
    expect(prompt.text.startsWith("Recall: the user prefers tea.\n\n")).toBe(true);
    const positions = positionsInText(prompt.text, [
      DEFAULT_IDENTITY_LINE,
      "## Tooling",
      "## Skills",
      "## Workspace",
      "## Current Date & Time",
      "## Runtime",
      "\n# Project Context\n",
    ]);
    expect(positions.every((position) => position > 0)).toBe(true);
    expect([...positions].sort((left, right) => left - right)).toEqual(positions);
  });

  it("lists tools as `- name: first line of the description`, falling back to the label", () => {
    const tooling = buildSystemPrompt(promptInput()).sections.find(
      (section) => section.name === "Tooling",
    )?.text;
    expect(tooling).toContain("- read: Read a file from the workspace.\n");
    expect(tooling).not.toContain("Longer explanation");
    expect(tooling).toContain("- exec: Run a shell command.\n");
    expect(tooling).toContain("- noop: No-op\n");
  });

  it("lists skills as escaped <skill> entries with a line telling the model to read SKILL.md first", () => {
    const skills = buildSystemPrompt(promptInput()).sections.find(
      (section) => section.name === "Skills",
    )?.text;
    expect(skills).toContain(
      "<available_skills>\n<skill><name>pdf</name><description>Work with &lt;PDF&gt; files &amp; forms.</description><location>/skills/pdf/SKILL.md</location></skill>\n</available_skills>",
    );
    expect(skills).toMatch(/read its SKILL\.md at <location> with the read tool before using the skill/);
  });

  it("leaves the Skills section and the engine addition out when there are none", () => {
    const prompt = buildSystemPrompt(promptInput({ skills: [], engineAddition: "   " }));
    expect(prompt.sections.map((section) => section.name)).not.toContain("Skills");
    expect(prompt.sections.map((section) => section.name)).not.toContain("Engine addition");
    expect(prompt.text).not.toContain("<available_skills>");
  });

  it("shows UTC only without a time zone, and the local time when one is configured, to the hour", () => {
    const utcOnly = buildSystemPrompt(promptInput()).sections.find((section) => section.name === "Time");
    expect(utcOnly?.text).toBe(
      "## Current Date & Time\nUTC: 2026-01-15T12:00Z (to the hour; run `date` for the exact time)",
    );
    const tokyo = buildSystemPrompt(promptInput({ userTimezone: "Asia/Tokyo" }));
    expect(tokyo.text).toContain("Local (Asia/Tokyo): 2026-01-15 21:00 Thursday (GMT+9)");
    const madrid = buildSystemPrompt(
      promptInput({ userTimezone: "Europe/Madrid", now: Date.UTC(2026, 6, 1, 23, 30) }),
    );
    expect(madrid.text).toContain("Local (Europe/Madrid): 2026-07-02 01:00 Thursday (GMT+2)");
  });

  it("keeps the prompt identical within an hour, so prompt caches and server threads survive", () => {
    const early = buildSystemPrompt(promptInput({ now: Date.UTC(2026, 0, 15, 12, 1) })).text;
    const late = buildSystemPrompt(promptInput({ now: Date.UTC(2026, 0, 15, 12, 59) })).text;
    expect(late).toBe(early);
  });

  it("rejects a time zone Intl does not know, naming the setting", () => {
    expect(() => buildSystemPrompt(promptInput({ userTimezone: "Mars/Olympus" }))).toThrow(
      InvalidOptionError,
    );
    expect(() => buildSystemPrompt(promptInput({ userTimezone: "Mars/Olympus" }))).toThrow(
      /agents\.defaults\.userTimezone/,
    );
  });

  it("writes the runtime line with host, OS, node, model and thinking level, skipping unknown parts", () => {
    const full = buildSystemPrompt(promptInput()).sections.find((section) => section.name === "Runtime");
    expect(full?.text).toBe(
      "## Runtime\nRuntime: host=build-box | os=linux 6.8.0 (x64) | node=v20.11.0 | model=anthropic/claude-test | thinking=low",
    );
    const partial = buildSystemPrompt(promptInput({ runtime: { model: "openai/gpt-test" } }));
    expect(partial.text).toContain("Runtime: model=openai/gpt-test");
  });

  it("renders each injected file as `## name` with its content, missing ones with their expected path", () => {
    const files: InjectedWorkspaceFile[] = [
      {
        name: "AGENTS.md",
        path: "/w/AGENTS.md",
        status: "OK",
        rawChars: 2,
        injectedChars: 2,
        content: "# Rules\nA",
        causes: [],
      },
      {
        name: "SOUL.md",
        path: "/w/SOUL.md",
        status: "MISSING",
        rawChars: 0,
        injectedChars: 0,
        content: "[MISSING] Expected at: /w/SOUL.md",
        causes: [],
      },
    ];
    const project = buildSystemPrompt(promptInput({ files })).sections.at(-1);
    expect(project?.text).toBe(
      [
        "# Project Context",
        "The following workspace files have been loaded:",
        "## AGENTS.md\n# Rules\nA",
        "## SOUL.md\n[MISSING] Expected at: /w/SOUL.md",
      ].join("\n\n"),
    );
  });

  it("asks the model to embody SOUL.md when it is present", () => {
    const soul: InjectedWorkspaceFile = {
      name: "SOUL.md",
      path: "/w/SOUL.md",
      status: "OK",
      rawChars: 5,
      injectedChars: 5,
      content: "Calm.",
      causes: [],
    };
    expect(buildSystemPrompt(promptInput({ files: [soul] })).text).toContain(
      "Embody the persona and tone SOUL.md",
    );
  });

  it("is deterministic and leaves out the identity line when asked", () => {
    expect(buildSystemPrompt(promptInput())).toEqual(buildSystemPrompt(promptInput()));
    const bare = buildSystemPrompt(promptInput({ identity: "" }));
    expect(bare.sections[0]?.name).toBe("Tooling");
  });
});

describe("withEngineAddition", () => {
  it("puts the addition first, joined the way the host joins it, and replaces an earlier one", () => {
    const base = buildSystemPrompt(promptInput());
    const withAddition = withEngineAddition(base, " Remember X. ");
    expect(withAddition.text).toBe(`Remember X.\n\n${base.text}`);
    expect(withAddition.sections[0]).toEqual({ name: "Engine addition", text: "Remember X." });
    const replaced = withEngineAddition(withAddition, "Remember Y.");
    expect(replaced.text).toBe(`Remember Y.\n\n${base.text}`);
    expect(withEngineAddition(base, "  ")).toBe(base);
  });
});
