import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
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
