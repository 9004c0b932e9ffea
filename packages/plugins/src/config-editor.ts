import { readFile, stat } from "node:fs/promises";
import { type ClewConfig, ConfigError, configPath, parseConfig } from "@clew/core";
import jju from "jju";
import JSON5 from "json5";
import { writeFileAtomic } from "./atomic-file.js";

export interface ConfigEditResult {
  /** False when the edit left the config as it was; nothing was written then. */
  changed: boolean;
  path: string;
  /** The previous file, kept byte for byte, when one existed and was replaced. */
  backupPath?: string;
  /**
   * The previous file's comments and JSON5 syntax (unquoted keys, trailing commas) could not be
   * kept, so it was written back as plain JSON. The backup still has them.
   */
  json5Dropped: boolean;
}

/**
 * The one way Clew changes `<home>/clew.json`: reads it (JSON5), lets `edit` change a copy, and
 * writes the result back atomically after saving the previous file as `clew.json.bak`. The edit is
 * applied to the file's own text, so its comments, layout and JSON5 syntax stay (a plain JSON file
 * stays plain JSON); only when that text would not read back as exactly the edited config is it
 * written as plain JSON instead (`json5Dropped`). A missing file starts from `{}`.
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
  const kept = previous === undefined ? undefined : editedText(previous, draft);
  const text = kept ?? `${JSON.stringify(draft, null, 2)}\n`;
  parseConfig(text, path);
  if (previous === undefined) {
    await writeFileAtomic(path, text, { mode: 0o600 });
    return { changed: true, path, json5Dropped: false };
  }
  const backupPath = `${path}.bak`;
  const mode = (await stat(path)).mode & 0o777;
  await writeFileAtomic(backupPath, previous, { mode });
  await writeFileAtomic(path, text, { mode });
  return { changed: true, path, backupPath, json5Dropped: kept === undefined && !isPlainJson(previous) };
}

/**
 * `previous` with its values changed to `config`'s, its formatting kept (jju's update: comments,
 * indentation, quoting and key order stay; new keys follow the file's style). Undefined, for the
 * caller to write plain JSON (always exact), when the result would not read back as exactly
 * `config`, a plain JSON file would stop being JSON, or the file holds a key jju cannot keep.
 */
function editedText(previous: string, config: ClewConfig): string | undefined {
  try {
    // jju's reader drops keys named like Object.prototype members ("constructor", "__proto__"),
    // so its update would add each of them again on every edit: such a file is not edited in place.
    jju.parse(previous, { mode: "json5", reserved_keys: "throw" });
    const updated = jju.update(previous, config, { mode: "json5" });
    let text = updated.endsWith("\n") ? updated : `${updated}\n`;
    // Blocks jju adds end lines with "\n" whatever the file uses.
    if (previous.includes("\r\n")) text = text.replace(/\r?\n/g, "\r\n");
    // The file is written as UTF-8, which has no lone surrogate (jju writes one raw, not escaped).
    if (Buffer.from(text, "utf8").toString("utf8") !== text) return undefined;
    if (!sameValue(JSON5.parse(text), config)) return undefined;
    if (isPlainJson(previous) && !isPlainJson(text)) return undefined;
    return text;
  } catch {
    return undefined;
  }
}

/**
 * Deep equality as a JSON5 reader sees values: numbers by `Object.is` (so `Infinity`, `NaN` and
 * `-0` compare as written), and an object member set to undefined as absent.
 */
function sameValue(left: unknown, right: unknown): boolean {
  if (typeof left !== "object" || left === null || typeof right !== "object" || right === null) {
    return Object.is(left, right);
  }
  if (Array.isArray(left) !== Array.isArray(right)) return false;
  if (Array.isArray(left) && Array.isArray(right)) {
    return left.length === right.length && left.every((item, index) => sameValue(item, right[index]));
  }
  const members = (value: object) =>
    Object.entries(value).filter(([, member]) => member !== undefined) as Array<[string, unknown]>;
  const leftMembers = members(left);
  const rightRecord = right as Record<string, unknown>;
  return (
    leftMembers.length === members(right).length &&
    leftMembers.every(
      ([key, member]) => Object.hasOwn(rightRecord, key) && sameValue(member, rightRecord[key]),
    )
  );
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
