import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CliIo } from "../src/io.js";
import { runCli } from "../src/main.js";

export const PI_SESSIONS_DIR =
  process.env.CLEW_PI_SESSIONS_DIR ?? join(import.meta.dirname, "../../../../shared/data/pi-sessions");

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** A temporary CLEW_HOME and a way to run `clew` in-process against it. */
export async function createCliHarness() {
  const home = await mkdtemp(join(tmpdir(), "clew-cli-"));
  return {
    home,
    async run(...argv: string[]): Promise<CliRun> {
      let stdout = "";
      let stderr = "";
      const io: CliIo = {
        stdout: (text) => {
          stdout += text;
        },
        stderr: (text) => {
          stderr += text;
        },
        env: { CLEW_HOME: home },
        cwd: home,
      };
      const code = await runCli(argv, io);
      return { code, stdout, stderr };
    },
    cleanup: () => rm(home, { recursive: true, force: true }),
  };
}
