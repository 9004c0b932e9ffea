import { readFile as readFileFromDisk, realpath, stat } from "node:fs/promises";
import { isAbsolute, join, relative } from "node:path";

/**
 * The workspace files injected into every run's system prompt under "# Project Context", in load
 * order. BOOTSTRAP.md joins on a session's first run only and MEMORY.md whenever it exists.
 */
export const WORKSPACE_FILE_NAMES = [
  "AGENTS.md",
  "SOUL.md",
  "TOOLS.md",
  "IDENTITY.md",
  "USER.md",
  "HEARTBEAT.md",
] as const;
export const BOOTSTRAP_FILE_NAME = "BOOTSTRAP.md";
export const MEMORY_FILE_NAME = "MEMORY.md";

/** Files above this size are not injected: a prompt never needs megabytes of one file. */
export const WORKSPACE_FILE_MAX_BYTES = 2 * 1024 * 1024;

/**
 * One workspace file as loaded. A missing file keeps its expected path so the prompt and the
 * report can say where it would be; `problem` says why a file that exists could not be read.
 */
export type WorkspaceFile =
  | { name: string; path: string; missing: false; content: string }
  | { name: string; path: string; missing: true; problem?: string };

/**
 * Reads one workspace file. Resolves `undefined` when the file does not exist; rejects when it
 * exists but cannot be used (the rejection's message becomes the file's `problem`).
 */
export type WorkspaceFileReader = (path: string) => Promise<string | undefined>;

export interface LoadWorkspaceFilesOptions {
  workspaceDir: string;
  /** True on a session's first run: BOOTSTRAP.md is injected then and only then. */
  firstRun: boolean;
  /** Defaults to `createWorkspaceFileReader(workspaceDir)`. */
  readFile?: WorkspaceFileReader;
}

/**
 * Loads the workspace files of one run, in load order: AGENTS.md, SOUL.md, TOOLS.md, IDENTITY.md,
 * USER.md, HEARTBEAT.md, then BOOTSTRAP.md (first run only), then MEMORY.md (only when present).
 * Absent files are listed as missing, except BOOTSTRAP.md and MEMORY.md, which are then left out
 * (a missing onboarding file on the first run only would make the first prompt differ from every
 * later one for nothing). Never rejects: a
 * file the reader rejects is listed as missing with the reason in `problem`.
 */
export async function loadWorkspaceFiles(options: LoadWorkspaceFilesOptions): Promise<WorkspaceFile[]> {
  const reader = options.readFile ?? createWorkspaceFileReader(options.workspaceDir);
  const names: string[] = [...WORKSPACE_FILE_NAMES];
  if (options.firstRun) names.push(BOOTSTRAP_FILE_NAME);
  names.push(MEMORY_FILE_NAME);
  const files = await Promise.all(names.map((name) => loadOne(reader, options.workspaceDir, name)));
  return files.filter(
    (file) =>
      !(
        (file.name === MEMORY_FILE_NAME || file.name === BOOTSTRAP_FILE_NAME) &&
        file.missing &&
        file.problem === undefined
      ),
  );
}

async function loadOne(
  reader: WorkspaceFileReader,
  workspaceDir: string,
  name: string,
): Promise<WorkspaceFile> {
  const path = join(workspaceDir, name);
  try {
    const content = await reader(path);
    if (content === undefined) return { name, path, missing: true };
    return { name, path, missing: false, content };
  } catch (error) {
    const problem = error instanceof Error ? error.message : String(error);
    return { name, path, missing: true, problem };
  }
}

/**
 * The default reader: UTF-8 text of a regular file inside the workspace. Absent files (also a
 * dangling link) resolve `undefined`; a link leading outside the workspace, a directory, or a file
 * over `maxBytes` rejects with a message naming the file, so a workspace cannot pull arbitrary host
 * files into the prompt.
 */
export function createWorkspaceFileReader(
  workspaceDir: string,
  options: { maxBytes?: number } = {},
): WorkspaceFileReader {
  const maxBytes = options.maxBytes ?? WORKSPACE_FILE_MAX_BYTES;
  let workspaceRoot: Promise<string> | undefined;
  return async (path) => {
    const resolved = await realpathOrUndefined(path);
    if (resolved === undefined) return undefined;
    workspaceRoot ??= realpath(workspaceDir);
    const fromRoot = relative(await workspaceRoot, resolved);
    if (fromRoot.startsWith("..") || isAbsolute(fromRoot)) {
      throw new Error(`${path} leads outside the workspace (to ${resolved})`);
    }
    const info = await stat(resolved);
    if (!info.isFile()) throw new Error(`${path} is not a regular file`);
    if (info.size > maxBytes)
      throw new Error(`${path} is ${info.size} bytes, over the ${maxBytes}-byte limit`);
    return readFileFromDisk(resolved, "utf8");
  };
}

async function realpathOrUndefined(path: string): Promise<string | undefined> {
  try {
    return await realpath(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    throw error;
  }
}
