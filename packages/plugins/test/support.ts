import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { type ClewConfig, configPath } from "@clew/core";

export const FIXTURES = join(import.meta.dirname, "fixtures");
export const CLEW_ENGINE_FIXTURE = join(FIXTURES, "clew-engine");
export const OPENCLAW_ENGINE_FIXTURE = join(FIXTURES, "openclaw-engine");
export const brokenFixture = (name: string): string => join(FIXTURES, "broken", name);

const run = promisify(execFile);

/** A temporary Clew home, removed by `cleanup`. */
export async function createTempHome(prefix = "clew-plugins-") {
  const home = await mkdtemp(join(tmpdir(), prefix));
  return {
    home,
    writeConfig: (config: ClewConfig | string) =>
      writeFile(configPath(home), typeof config === "string" ? config : JSON.stringify(config, null, 2)),
    readConfigText: () => readFile(configPath(home), "utf8"),
    readConfig: async () => JSON.parse(await readFile(configPath(home), "utf8")) as ClewConfig,
    cleanup: () => rm(home, { recursive: true, force: true }),
  };
}

/** A real `npm pack` of a fixture folder into `destination`; resolves with the tarball path. */
export async function packFixture(folder: string, destination: string): Promise<string> {
  const { stdout } = await run(
    "npm",
    ["pack", folder, "--pack-destination", destination, "--json", "--ignore-scripts"],
    {
      cwd: destination,
    },
  );
  const [packed] = JSON.parse(stdout) as Array<{ filename: string }>;
  if (packed === undefined) throw new Error(`npm pack ${folder} printed nothing`);
  return join(destination, packed.filename);
}

/** A tool or command sink like the agent's ToolRegistry: names by owner, first owner wins. */
export class RecordingSink<T extends { name: string }> {
  readonly entries = new Map<string, { item: T; owner: string }>();

  register(item: T, owner: string): { ok: true } | { ok: false; existingOwner: string } {
    const existing = this.entries.get(item.name);
    if (existing !== undefined && existing.owner !== owner)
      return { ok: false, existingOwner: existing.owner };
    this.entries.set(item.name, { item, owner });
    return { ok: true };
  }

  unregisterOwner(owner: string): void {
    for (const [name, entry] of this.entries) if (entry.owner === owner) this.entries.delete(name);
  }
}

/** Writes `files` into `dir` (created); objects are written as JSON. */
export async function writeFiles(dir: string, files: Record<string, unknown>): Promise<void> {
  await mkdir(dir, { recursive: true });
  for (const [name, content] of Object.entries(files)) {
    await writeFile(
      join(dir, name),
      typeof content === "string" ? content : JSON.stringify(content, null, 2),
    );
  }
}
