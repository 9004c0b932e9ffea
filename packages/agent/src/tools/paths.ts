/**
 * How the file tools turn a path the model wrote into one the filesystem understands. The
 * workspace is a default root, not a sandbox: absolute paths are used as written so messages quote
 * exactly what the model asked for.
 */
import { homedir } from "node:os";
import path from "node:path";

export interface ResolveToolPathOptions {
  /** Where relative paths start. */
  workspaceDir: string;
  /** What `~` means; defaults to the current user's home directory. */
  homeDir?: string;
}

/**
 * Resolves `userPath`: `~` and `~/…` expand to the home directory, absolute paths are returned
 * as written, anything else is resolved against the workspace.
 *
 * @throws Error when `userPath` is empty or blank, naming the problem.
 */
export function resolveToolPath(userPath: string, options: ResolveToolPathOptions): string {
  if (userPath.trim() === "") throw new Error("path must not be empty");
  const expanded = expandHome(userPath, options.homeDir ?? homedir());
  if (path.isAbsolute(expanded)) return expanded;
  return path.resolve(options.workspaceDir, expanded);
}

function expandHome(userPath: string, homeDir: string): string {
  if (userPath === "~") return homeDir;
  if (userPath.startsWith("~/")) return path.join(homeDir, userPath.slice(2));
  return userPath;
}

/**
 * The error a file tool throws for a failed filesystem call on `resolvedPath`: a missing file and
 * a directory get messages the model can act on; anything else keeps the system's message.
 */
export function fileAccessError(error: unknown, resolvedPath: string): Error {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === "ENOENT") return new Error(`File not found: ${resolvedPath}`, { cause: error });
  if (code === "EISDIR") return new Error(`${resolvedPath} is a directory, not a file`, { cause: error });
  if (code === "EACCES" || code === "EPERM") {
    return new Error(`Permission denied: ${resolvedPath}`, { cause: error });
  }
  const detail = error instanceof Error ? error.message : String(error);
  return new Error(`Cannot access ${resolvedPath}: ${detail}`, { cause: error });
}
