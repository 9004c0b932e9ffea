import type { SkillEntry } from "./load-skills.js";
import {
  DEFAULT_IDENTITY_LINE,
  type PromptTool,
  type RuntimeInfo,
  renderIdentitySection,
  renderProjectContextSection,
  renderRuntimeSection,
  renderSkillsSection,
  renderTimeSection,
  renderToolingSection,
  renderWorkspaceSection,
} from "./prompt-sections.js";
import type { InjectedWorkspaceFile } from "./truncate-workspace-files.js";
import {
  decideTruncationWarning,
  renderTruncationWarning,
  type TruncationWarningMode,
  type TruncationWarningState,
} from "./truncation-warning.js";

/** Section names, in prompt order. */
export const PROMPT_SECTION_NAMES = {
  engineAddition: "Engine addition",
  identity: "Identity",
  tooling: "Tooling",
  skills: "Skills",
  workspace: "Workspace",
  time: "Time",
  runtime: "Runtime",
  projectContext: "Project Context",
} as const;

/** Sections are separated by one blank line; the host joins the engine's addition the same way. */
export const PROMPT_SECTION_SEPARATOR = "\n\n";

export interface SystemPromptSection {
  name: string;
  text: string;
}

export interface SystemPromptInput {
  /** The engine's `systemPromptAddition`, when it is known while building; put first. */
  engineAddition?: string;
  /** The opening line; defaults to `DEFAULT_IDENTITY_LINE`, "" leaves it out. */
  identity?: string;
  tools: readonly PromptTool[];
  skills: readonly SkillEntry[];
  workspaceDir: string;
  /** Epoch milliseconds. */
  now: number;
  /** IANA zone (`agents.defaults.userTimezone`); adds the local time. */
  userTimezone?: string;
  runtime: RuntimeInfo;
  /** Output of `truncateWorkspaceFiles`, in injection order. */
  files: readonly InjectedWorkspaceFile[];
  /** Defaults to mode `once` with no state (so a truncation is warned about). */
  truncationWarning?: { mode: TruncationWarningMode; state?: TruncationWarningState };
}

export interface BuiltSystemPrompt {
  /** The sections joined by `PROMPT_SECTION_SEPARATOR`. */
  text: string;
  sections: SystemPromptSection[];
  truncationWarning: {
    mode: TruncationWarningMode;
    shown: boolean;
    /** Persist this with the session and pass it back on the next run. */
    state: TruncationWarningState;
  };
}

/**
 * Builds the run's system prompt, rebuilt on every run, in a fixed order: engine addition (when
 * given), identity, Tooling, Skills (only with skills), Workspace, Current Date & Time, Runtime,
 * then `# Project Context` with the injected files and, per the warning mode, the truncation
 * warning. Deterministic for the same input. Throws `InvalidOptionError` only for a
 * `userTimezone` that `Intl` does not know; never mutates its input.
 */
export function buildSystemPrompt(input: SystemPromptInput): BuiltSystemPrompt {
  const mode = input.truncationWarning?.mode ?? "once";
  const decision = decideTruncationWarning({
    mode,
    files: input.files,
    state: input.truncationWarning?.state,
  });
  const warning = decision.show ? renderTruncationWarning(input.files) : undefined;
  const candidates: Array<[string, string | undefined]> = [
    [PROMPT_SECTION_NAMES.engineAddition, input.engineAddition?.trim() || undefined],
    [PROMPT_SECTION_NAMES.identity, renderIdentitySection(input.identity ?? DEFAULT_IDENTITY_LINE)],
    [PROMPT_SECTION_NAMES.tooling, renderToolingSection(input.tools)],
    [PROMPT_SECTION_NAMES.skills, renderSkillsSection(input.skills)],
    [PROMPT_SECTION_NAMES.workspace, renderWorkspaceSection(input.workspaceDir)],
    [PROMPT_SECTION_NAMES.time, renderTimeSection(input.now, input.userTimezone)],
    [PROMPT_SECTION_NAMES.runtime, renderRuntimeSection(input.runtime)],
    [PROMPT_SECTION_NAMES.projectContext, renderProjectContextSection(input.files, warning)],
  ];
  const sections = candidates
    .filter((candidate): candidate is [string, string] => candidate[1] !== undefined)
    .map(([name, text]) => ({ name, text }));
  return {
    text: joinSections(sections),
    sections,
    truncationWarning: { mode, shown: decision.show, state: decision.state },
  };
}

/**
 * The prompt with the engine's `systemPromptAddition` in front, joined the way the host joins it
 * (`addition + "\n\n" + prompt`). An empty or blank addition returns the prompt unchanged; a prompt
 * that already has an addition gets it replaced.
 */
export function withEngineAddition(
  prompt: BuiltSystemPrompt,
  addition: string | undefined,
): BuiltSystemPrompt {
  const trimmed = addition?.trim();
  if (!trimmed) return prompt;
  const rest = prompt.sections.filter((section) => section.name !== PROMPT_SECTION_NAMES.engineAddition);
  const sections = [{ name: PROMPT_SECTION_NAMES.engineAddition, text: trimmed }, ...rest];
  return { ...prompt, text: joinSections(sections), sections };
}

function joinSections(sections: readonly SystemPromptSection[]): string {
  return sections.map((section) => section.text).join(PROMPT_SECTION_SEPARATOR);
}
