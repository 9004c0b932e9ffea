import { createHash } from "node:crypto";
import { mkdir, readFile } from "node:fs/promises";
import { extract } from "tar";

/**
 * Unpacks an npm package tarball into `destination`, dropping its top folder (`package/`). Entries
 * with absolute paths or `..` are refused by the tar reader, so nothing lands outside
 * `destination`; file owners are not copied.
 */
export async function extractPackageTarball(file: string, destination: string): Promise<void> {
  await mkdir(destination, { recursive: true });
  await extract({ file, cwd: destination, strip: 1, preserveOwner: false });
}

/** `sha512-<base64>` of the file's bytes: the same form npm and package-lock use. */
export async function tarballIntegrity(file: string): Promise<string> {
  const digest = createHash("sha512")
    .update(await readFile(file))
    .digest("base64");
  return `sha512-${digest}`;
}
