import { describe, expect, it } from "vitest";
import {
  type BuiltSystemPrompt,
  buildSystemPrompt,
  type InjectedWorkspaceFile,
  type TruncationWarningMode,
  type TruncationWarningState,
} from "../../src/index.js";
import { promptInput } from "./prompt-fixtures.js";

const WARNING_HEADING = "[Bootstrap truncation warning]";

function file(name: string, truncated: boolean): InjectedWorkspaceFile {
  return {
    name,
    path: `/w/${name}`,
    status: truncated ? "TRUNCATED" : "OK",
    rawChars: truncated ? 50_000 : 10,
    injectedChars: truncated ? 12_000 : 10,
    content: `${name} text`,
    causes: truncated ? ["per-file-limit"] : [],
  };
}

/** Runs the builder like consecutive runs do: the state goes through JSON, as if persisted. */
function runs(mode: TruncationWarningMode, fileSets: InjectedWorkspaceFile[][]): BuiltSystemPrompt[] {
  let state: TruncationWarningState | undefined;
  return fileSets.map((files) => {
    const prompt = buildSystemPrompt(promptInput({ files, truncationWarning: { mode, state } }));
    state = JSON.parse(JSON.stringify(prompt.truncationWarning.state)) as TruncationWarningState;
    return prompt;
  });
}

const shown = (prompts: BuiltSystemPrompt[]) => prompts.map((prompt) => prompt.truncationWarning.shown);

describe("truncation warning", () => {
  it("once: warns on the first run, not again for the same truncated set, again when the set changes", () => {
    const toolsCut = [file("AGENTS.md", false), file("TOOLS.md", true)];
    const toolsCutAgain = [file("AGENTS.md", false), { ...file("TOOLS.md", true), rawChars: 51_000 }];
    const bothCut = [file("AGENTS.md", true), file("TOOLS.md", true)];
    const prompts = runs("once", [toolsCut, toolsCutAgain, bothCut, bothCut]);
    expect(shown(prompts)).toEqual([true, false, true, false]);
    for (const [index, prompt] of prompts.entries()) {
      expect(prompt.text.includes(WARNING_HEADING)).toBe(shown(prompts)[index]);
    }
  });

  it("once: warns again when a fixed truncation comes back", () => {
    const cut = [file("TOOLS.md", true)];
    const fixed = [file("TOOLS.md", false)];
    expect(shown(runs("once", [cut, fixed, cut]))).toEqual([true, false, true]);
  });

  it("always: warns on every run with truncation", () => {
    const cut = [file("TOOLS.md", true)];
    expect(shown(runs("always", [cut, cut, [file("TOOLS.md", false)]]))).toEqual([true, true, false]);
  });

  it("off: never warns", () => {
    const cut = [file("TOOLS.md", true)];
    const prompts = runs("off", [cut, cut]);
    expect(shown(prompts)).toEqual([false, false]);
    expect(prompts[0]?.text).not.toContain(WARNING_HEADING);
  });

  it("sits under # Project Context, before the files, naming the truncated files", () => {
    const [prompt] = runs("always", [[file("AGENTS.md", false), file("TOOLS.md", true)]]);
    const project = prompt?.sections.at(-1)?.text ?? "";
    expect(project.indexOf(WARNING_HEADING)).toBeGreaterThan(project.indexOf("# Project Context"));
    expect(project.indexOf(WARNING_HEADING)).toBeLessThan(project.indexOf("## AGENTS.md"));
    expect(project).toContain("- TOOLS.md: 50000 raw -> 12000 injected chars (max/file)");
    expect(project).not.toContain("- AGENTS.md:");
  });

  it("defaults to once without state, so a first truncation is warned about", () => {
    const prompt = buildSystemPrompt(promptInput({ files: [file("TOOLS.md", true)] }));
    expect(prompt.truncationWarning).toMatchObject({ mode: "once", shown: true });
  });
});
