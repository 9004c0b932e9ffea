/**
 * The size of an engine's state folder: every file in it, indexes and write-ahead logs included,
 * since all of them take disk space while the engine runs.
 */
import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";

export interface StoreSize {
  bytes: number;
  /** Bytes per file, by path relative to the folder. */
  files: Record<string, number>;
}

/** Every file under `directory`, recursively; nothing when it does not exist. Never throws. */
export async function measureStoreSize(directory: string): Promise<StoreSize> {
  let names: string[];
  try {
    names = await readdir(directory, { recursive: true });
  } catch {
    return { bytes: 0, files: {} };
  }
  const files: Record<string, number> = {};
  let bytes = 0;
  for (const name of names.sort()) {
    // A file may vanish between listing and stat (a WAL checkpoint removing its side file).
    const info = await stat(join(directory, name)).catch(() => undefined);
    if (info?.isFile() !== true) continue;
    files[name] = info.size;
    bytes += info.size;
  }
  return { bytes, files };
}
