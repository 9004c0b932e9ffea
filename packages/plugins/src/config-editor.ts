import { readFile, stat } from "node:fs/promises";
import { type ClewConfig, ConfigError, configPath, parseConfig } from "@clew/core";
import { writeFileAtomic } from "./atomic-file.js";

export interface ConfigEditResult {
  /** False when the edit left the config as it was; nothing was written then. */
  changed: boolean;
  path: string;
  /** The previous file, kept byte for byte, when one existed and was replaced. */
  backupPath?: string;
  /**
   * The previous file used JSON5 syntax (comments, unquoted keys, trailing commas) that the plain
   * JSON written back does not keep. The backup still has it.
   */
  json5Dropped: boolean;
}

/**
 * The one way Clew changes `<home>/clew.json`: reads it (JSON5), lets `edit` change a copy, and
 * writes the result back atomically as plain JSON after saving the previous file as
 * `clew.json.bak`. A missing file starts from `{}`.
 *
 * Throws core's `ConfigError` (naming file, line and field) when the current file does not parse
 * or validate: the user's file is never overwritten then. The edited config is validated before it
 * is written, so an edit can never leave an invalid file behind. Nothing is written when the edit
 * changes nothing.
 */
export async function editClewConfig(
  home: string,
  edit: (config: ClewConfig) => void,
): Promise<ConfigEditResult> {
  const path = configPath(home);
  const previous = await readIfExists(path);
  const current = previous === undefined ? {} : parseConfig(previous, path);
  const draft = structuredClone(current);
  edit(draft);
  if (JSON.stringify(draft) === JSON.stringify(current)) return { changed: false, path, json5Dropped: false };
  const text = `${JSON.stringify(draft, null, 2)}\n`;
  parseConfig(text, path);
  if (previous === undefined) {
    await writeFileAtomic(path, text, { mode: 0o600 });
    return { changed: true, path, json5Dropped: false };
  }
  const backupPath = `${path}.bak`;
  const mode = (await stat(path)).mode & 0o777;
  await writeFileAtomic(backupPath, previous, { mode });
  await writeFileAtomic(path, text, { mode });
  return { changed: true, path, backupPath, json5Dropped: !isPlainJson(previous) };
}

async function readIfExists(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new ConfigError(
      path,
      [{ path: "", message: `cannot read the file: ${(error as Error).message}` }],
      error,
    );
  }
}

function isPlainJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
