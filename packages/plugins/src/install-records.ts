import { mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { writeFileAtomic } from "./atomic-file.js";
import { PluginInstallError } from "./errors.js";

/** Where an installed plugin came from. `link` plugins stay in their own folder. */
export type PluginSource = "path" | "tarball" | "npm" | "link";

export const PLUGIN_SOURCES: readonly PluginSource[] = ["path", "tarball", "npm", "link"];

export interface PluginInstallRecord {
  source: PluginSource;
  /** What was installed: the absolute folder or tarball, or the npm spec as given. */
  spec: string;
  version?: string;
  /** `sha512-<base64>` of the tarball installed (for a folder: of the tarball `npm pack` made). */
  integrity?: string;
  /** ISO 8601. */
  installedAt: string;
  /** The plugin's folder: `<home>/plugins/<id>`, or the linked folder itself. */
  dir: string;
}

/** Install records by plugin id, as stored in `<home>/plugins/installs.json`. */
export type PluginInstallRecords = Record<string, PluginInstallRecord>;

/** `<home>/plugins`: Clew's own plugins folder. */
export function pluginsDir(home: string): string {
  return join(home, "plugins");
}

export function installRecordsPath(home: string): string {
  return join(pluginsDir(home), "installs.json");
}

/**
 * The install records; a missing file means none. Throws `PluginInstallError` naming the file
 * when it is not valid JSON or a record lacks `source` or `dir`, so a damaged file is reported
 * instead of being silently overwritten.
 */
export async function readInstallRecords(home: string): Promise<PluginInstallRecords> {
  const file = installRecordsPath(home);
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return {};
    throw new PluginInstallError(file, `cannot read ${file}: ${(error as Error).message}`, error);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new PluginInstallError(
      file,
      `${file} is not valid JSON (${(error as Error).message}); repair or remove it`,
      error,
    );
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new PluginInstallError(file, `${file} must hold an object of install records by plugin id`);
  }
  for (const [id, record] of Object.entries(value)) {
    const fields = record as Partial<PluginInstallRecord> | null;
    if (typeof fields?.dir !== "string" || !PLUGIN_SOURCES.includes(fields.source as PluginSource)) {
      throw new PluginInstallError(
        file,
        `${file}: record "${id}" needs "dir" and a "source" of ${PLUGIN_SOURCES.join(", ")}`,
      );
    }
  }
  return value as PluginInstallRecords;
}

/** Writes the records atomically, sorted by id. */
export async function writeInstallRecords(home: string, records: PluginInstallRecords): Promise<void> {
  await mkdir(pluginsDir(home), { recursive: true });
  const sorted = Object.fromEntries(
    Object.entries(records).sort(([left], [right]) => left.localeCompare(right)),
  );
  await writeFileAtomic(installRecordsPath(home), `${JSON.stringify(sorted, null, 2)}\n`);
}
