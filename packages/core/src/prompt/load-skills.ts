import type { Dirent } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { parseSkillFrontMatter } from "./skill-front-matter.js";

export const SKILL_FILE_NAME = "SKILL.md";
/** Longer descriptions are refused: the list is in every prompt, the instructions are not. */
export const SKILL_DESCRIPTION_MAX_CHARS = 1_024;
export const SKILL_NAME_MAX_CHARS = 64;

/** One skill as listed in the prompt; the instructions stay in the SKILL.md at `location`. */
export interface SkillEntry {
  name: string;
  description: string;
  /** Path of the skill's SKILL.md. */
  location: string;
}

/** A SKILL.md that was skipped, and why. */
export interface SkillProblem {
  file: string;
  /** 1-based line in `file`, when the problem is at one. */
  line?: number;
  reason: string;
}

export interface LoadedSkills {
  skills: SkillEntry[];
  problems: SkillProblem[];
}

/** `<workspaceDir>/skills` then `<home>/skills` (home is Clew's home): the workspace wins. */
export function defaultSkillsDirs(options: { workspaceDir: string; home: string }): string[] {
  return [join(options.workspaceDir, "skills"), join(options.home, "skills")];
}

/**
 * Lists the skills in `<dir>/<folder>/SKILL.md` for each dir, dirs in order and folders by name.
 * A skill's `name` comes from its front matter (the folder name when absent) and `description` is
 * required. When two skills share a name the first one found is kept; within one dir the later one
 * is reported. Missing dirs and folders without a SKILL.md are not problems. Never rejects: a bad
 * or unreadable SKILL.md is reported in `problems` (file, line, reason) and skipped.
 */
export async function loadSkills(options: { dirs: readonly string[] }): Promise<LoadedSkills> {
  const loaded: LoadedSkills = { skills: [], problems: [] };
  const taken = new Map<string, string>();
  for (const dir of options.dirs) {
    const takenHere = new Set<string>();
    for (const result of await readSkillsDir(dir)) {
      if ("reason" in result) {
        loaded.problems.push(result);
        continue;
      }
      const holder = taken.get(result.name);
      if (holder === undefined) {
        taken.set(result.name, result.location);
        takenHere.add(result.name);
        loaded.skills.push(result);
      } else if (takenHere.has(result.name)) {
        loaded.problems.push({
          file: result.location,
          reason: `skill name "${result.name}" is already used by ${holder}`,
        });
      }
    }
  }
  return loaded;
}

async function readSkillsDir(dir: string): Promise<Array<SkillEntry | SkillProblem>> {
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (error) {
    if (isAbsent(error)) return [];
    return [{ file: dir, reason: `cannot list the skills folder: ${messageOf(error)}` }];
  }
  const folders = entries
    .filter((entry) => entry.isDirectory() || entry.isSymbolicLink())
    .map((entry) => entry.name)
    .sort();
  const results = await Promise.all(folders.map((folder) => readSkill(join(dir, folder, SKILL_FILE_NAME))));
  return results.filter((result): result is SkillEntry | SkillProblem => result !== undefined);
}

async function readSkill(file: string): Promise<SkillEntry | SkillProblem | undefined> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if (isAbsent(error)) return undefined;
    return { file, reason: `cannot read: ${messageOf(error)}` };
  }
  return skillFromText(file, text);
}

/** Builds the entry for one SKILL.md text, or the problem that keeps it out of the prompt. */
export function skillFromText(file: string, text: string): SkillEntry | SkillProblem {
  const parsed = parseSkillFrontMatter(text);
  if (!parsed.ok) return { file, line: parsed.line, reason: parsed.reason };
  const name = parsed.name?.trim() || basename(dirname(file));
  const description = parsed.description?.trim() ?? "";
  if (/[\r\n]/.test(name) || name.length > SKILL_NAME_MAX_CHARS) {
    return { file, reason: `"name" must be one line of at most ${SKILL_NAME_MAX_CHARS} characters` };
  }
  if (description === "") return { file, reason: 'front matter has no "description"' };
  if (description.length > SKILL_DESCRIPTION_MAX_CHARS) {
    return {
      file,
      reason: `"description" is ${description.length} characters, over the ${SKILL_DESCRIPTION_MAX_CHARS} limit`,
    };
  }
  return { name, description, location: file };
}

function isAbsent(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === "ENOENT" || code === "ENOTDIR";
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
