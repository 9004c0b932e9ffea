import { execFile } from "node:child_process";
import { join } from "node:path";

export interface NpmResult {
  stdout: string;
  stderr: string;
}

/** Runs `npm <args>` in `cwd`; rejects with an Error whose message ends with npm's stderr. */
export type NpmRunner = (args: string[], options: { cwd: string }) => Promise<NpmResult>;

export interface NpmRunnerOptions {
  /** Default `npm` (`npm.cmd` on Windows). */
  command?: string;
  /** Default the process environment. Settings that would redirect npm elsewhere are removed. */
  env?: Record<string, string | undefined>;
  /** Default 5 minutes. */
  timeoutMs?: number;
}

// Inherited from `npm test -w ...` or `npm exec` these would point the plugin install at the
// caller's workspace or global prefix instead of the plugin folder.
const REDIRECTING_SETTINGS =
  /^npm_config_(workspaces?|include_workspace_root|prefix|global|location|dry_run)$/i;

/** The real npm, as a child process. */
export function createNpmRunner(options: NpmRunnerOptions = {}): NpmRunner {
  const windows = process.platform === "win32";
  const command = options.command ?? (windows ? "npm.cmd" : "npm");
  const env = Object.fromEntries(
    Object.entries(options.env ?? process.env).filter(([key]) => !REDIRECTING_SETTINGS.test(key)),
  );
  return (args, { cwd }) =>
    new Promise((resolve, reject) => {
      execFile(
        command,
        args,
        { cwd, env, shell: windows, timeout: options.timeoutMs ?? 300_000, maxBuffer: 32 * 1024 * 1024 },
        (error, stdout, stderr) => {
          if (error === null) {
            resolve({ stdout, stderr });
            return;
          }
          const detail = stderr.trim().split("\n").slice(-12).join("\n");
          reject(new Error(`npm ${args.join(" ")} failed: ${detail || error.message}`, { cause: error }));
        },
      );
    });
}

/**
 * `npm pack <spec>` into `destination`: a folder is packed as it would be published (its `files`
 * and `.npmignore` apply, lifecycle scripts do not run); an npm spec is downloaded from the
 * registry. Resolves with the absolute path of the tarball.
 */
export async function packToTarball(npm: NpmRunner, spec: string, destination: string): Promise<string> {
  const { stdout } = await npm(
    ["pack", spec, "--pack-destination", destination, "--json", "--ignore-scripts", "--loglevel=error"],
    { cwd: destination },
  );
  let packed: unknown;
  try {
    packed = JSON.parse(stdout);
  } catch (error) {
    throw new Error(`npm pack ${spec} printed no JSON: ${stdout.slice(0, 200)}`, { cause: error });
  }
  const filename = Array.isArray(packed)
    ? (packed[0] as { filename?: unknown } | undefined)?.filename
    : undefined;
  if (typeof filename !== "string")
    throw new Error(`npm pack ${spec} named no tarball: ${stdout.slice(0, 200)}`);
  return join(destination, filename);
}

/**
 * Installs the production dependencies of the package in `dir` from the registry. Peer
 * dependencies are not installed (an OpenClaw plugin's peer `openclaw` is provided by Clew),
 * dependency lifecycle scripts do not run, and `file:` dependencies are copied rather than linked
 * so the installed plugin does not depend on folders outside it.
 */
export async function installDependencies(npm: NpmRunner, dir: string): Promise<void> {
  await npm(
    [
      "install",
      "--omit=dev",
      "--legacy-peer-deps",
      "--ignore-scripts",
      "--install-links",
      "--no-audit",
      "--no-fund",
      "--loglevel=error",
    ],
    { cwd: dir },
  );
}
