/** What a command may touch of the outside world; tests pass their own. */
export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  env: Record<string, string | undefined>;
  cwd: string;
  /** Whether stderr is a terminal (progress bars redraw in place only then). */
  stderrIsTTY?: boolean;
  /** Where `clew chat` reads lines; default the process's stdin. */
  stdin?: NodeJS.ReadableStream;
}

export function nodeIo(): CliIo {
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    env: process.env,
    cwd: process.cwd(),
    stderrIsTTY: process.stderr.isTTY === true,
  };
}

/** A failure the user caused and can fix; printed without a stack, exit status 1. */
export class CliUsageError extends Error {
  override name = "CliUsageError";
}
