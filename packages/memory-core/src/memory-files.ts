/**
 * Which files are notes: the workspace's `MEMORY.md` and every `*.md` under `memory/`. Tools take
 * paths relative to the workspace (`memory/2025-01-02.md`); anything else is refused, so the
 * memory tools never become a general file reader.
 */
import type { Dirent } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import { MEMORY_FILE_NAME } from "@clew/core";

export const MEMORY_DIR_NAME = "memory";
/** Notes larger than this are skipped by search (a note, not a log). */
export const MAX_NOTE_BYTES = 2 * 1024 * 1024;
const MAX_DIRECTORY_DEPTH = 8;

/**
 * The note files of `workspaceDir`, as workspace-relative paths with `/` separators: `MEMORY.md`
 * first (when it exists), then `memory/**\/*.md` sorted. Hidden entries and symlinked folders are
 * not followed. A missing workspace or `memory/` folder means no notes; other errors propagate.
 */
export async function listMemoryFiles(workspaceDir: string): Promise<string[]> {
  const files: string[] = [];
  if (await isFile(join(workspaceDir, MEMORY_FILE_NAME))) files.push(MEMORY_FILE_NAME);
  const found: string[] = [];
  await collectMarkdown(join(workspaceDir, MEMORY_DIR_NAME), MEMORY_DIR_NAME, 0, found);
  return [...files, ...found.sort()];
}

async function collectMarkdown(
  dir: string,
  relativeDir: string,
  depth: number,
  found: string[],
): Promise<void> {
  if (depth > MAX_DIRECTORY_DEPTH) return;
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (error) {
    if (isMissing(error)) return;
    throw error;
  }
  for (const entry of entries) {
    if (entry.name.startsWith(".")) continue;
    const relativePath = `${relativeDir}/${entry.name}`;
    if (entry.isDirectory()) await collectMarkdown(join(dir, entry.name), relativePath, depth + 1, found);
    else if (entry.isFile() && entry.name.toLowerCase().endsWith(".md")) found.push(relativePath);
  }
}

/**
 * The absolute file of a note path given by the model. Accepts `MEMORY.md` and `memory/...md`,
 * relative to the workspace or absolute inside it. Throws an `Error` (a tool error the model
 * reads) naming the path for anything else.
 */
export function resolveMemoryPath(
  workspaceDir: string,
  notePath: string,
): { absolute: string; relative: string } {
  const root = resolve(workspaceDir);
  const absolute = isAbsolute(notePath) ? resolve(notePath) : resolve(root, notePath);
  const inside = relative(root, absolute).split(sep).join("/");
  const isMemoryFile = inside === MEMORY_FILE_NAME;
  const isNote =
    inside.startsWith(`${MEMORY_DIR_NAME}/`) &&
    inside.toLowerCase().endsWith(".md") &&
    !inside.includes("../");
  if (!isMemoryFile && !isNote) {
    throw new Error(
      `memory_get reads only ${MEMORY_FILE_NAME} and ${MEMORY_DIR_NAME}/*.md in the workspace, not "${notePath}"; use read for other files`,
    );
  }
  return { absolute, relative: inside };
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch (error) {
    if (isMissing(error)) return false;
    throw error;
  }
}

export function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === "ENOENT" || code === "ENOTDIR";
}
