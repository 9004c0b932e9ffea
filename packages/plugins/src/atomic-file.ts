import { randomBytes } from "node:crypto";
import { open, rename, rm } from "node:fs/promises";

/**
 * Replaces `path` with `text` so readers see the old file or the new one, never a torn one: a
 * temporary file beside it is written, flushed to disk and renamed over it. On failure the
 * temporary file is removed and `path` is untouched.
 */
export async function writeFileAtomic(
  path: string,
  text: string,
  options: { mode?: number } = {},
): Promise<void> {
  const temporary = `${path}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  try {
    const handle = await open(temporary, "w", options.mode ?? 0o644);
    try {
      await handle.writeFile(text, "utf8");
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}
