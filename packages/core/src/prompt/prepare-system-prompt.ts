import { type BuiltSystemPrompt, buildSystemPrompt } from "./build-system-prompt.js";
import { defaultSkillsDirs, type LoadedSkills, loadSkills } from "./load-skills.js";
import type { PromptTool, RuntimeInfo } from "./prompt-sections.js";
import type { PromptSettings } from "./prompt-settings.js";
import { type TruncatedWorkspaceFiles, truncateWorkspaceFiles } from "./truncate-workspace-files.js";
import type { TruncationWarningState } from "./truncation-warning.js";
import { loadWorkspaceFiles, type WorkspaceFileReader } from "./workspace-files.js";

export interface PrepareSystemPromptOptions {
  workspaceDir: string;
  /** True on a session's first run (BOOTSTRAP.md is injected). */
  firstRun: boolean;
  /** Clew's home, for the default skills dirs; ignored when `skillsDirs` is given. */
  home: string;
  /** Defaults to `<workspaceDir>/skills`, `<home>/skills`. */
  skillsDirs?: readonly string[];
  tools: readonly PromptTool[];
  settings: PromptSettings;
  runtime: RuntimeInfo;
  now: number;
  engineAddition?: string;
  identity?: string;
  /** The `once` warning memory from the previous run (persisted by the caller). */
  warningState?: TruncationWarningState;
  readFile?: WorkspaceFileReader;
}

/** Everything one run's prompt was made of, for the model call and for `buildRunReport`. */
export interface PreparedSystemPrompt {
  prompt: BuiltSystemPrompt;
  workspaceFiles: TruncatedWorkspaceFiles;
  skills: LoadedSkills;
}

/**
 * Loads the workspace files and skills, fits the files into the budget and builds the prompt: the
 * whole per-run sequence in one call. Bad skill files and unreadable workspace files are reported
 * in the result, never thrown; throws `InvalidOptionError` only for invalid settings.
 */
export async function prepareSystemPrompt(
  options: PrepareSystemPromptOptions,
): Promise<PreparedSystemPrompt> {
  const dirs =
    options.skillsDirs ?? defaultSkillsDirs({ workspaceDir: options.workspaceDir, home: options.home });
  const [files, skills] = await Promise.all([
    loadWorkspaceFiles({
      workspaceDir: options.workspaceDir,
      firstRun: options.firstRun,
      readFile: options.readFile,
    }),
    loadSkills({ dirs }),
  ]);
  const workspaceFiles = truncateWorkspaceFiles(files, {
    maxChars: options.settings.bootstrapMaxChars,
    totalMaxChars: options.settings.bootstrapTotalMaxChars,
  });
  const prompt = buildSystemPrompt({
    tools: options.tools,
    skills: skills.skills,
    workspaceDir: options.workspaceDir,
    now: options.now,
    runtime: options.runtime,
    files: workspaceFiles.files,
    truncationWarning: { mode: options.settings.truncationWarning, state: options.warningState },
    userTimezone: options.settings.userTimezone,
    engineAddition: options.engineAddition,
    identity: options.identity,
  });
  return { prompt, workspaceFiles, skills };
}
