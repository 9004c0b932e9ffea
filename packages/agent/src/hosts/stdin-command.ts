/**
 * Runs one command with a text on stdin and collects what it prints. The command runs in its own
 * process group, so a timeout or an abort stops everything it started, not just its first process.
 */
import { runInProcessGroup } from "../process/process-group.js";

const STDERR_TAIL_CHARS = 4_000;

export interface StdinCommandOptions {
  command: string;
  args: readonly string[];
  cwd: string;
  /** Written to stdin, which is then closed. A command that never reads it is fine. */
  input: string;
  timeoutMs: number;
  /** Most stdout characters collected; past it the group is killed. */
  maxOutputChars: number;
  signal?: AbortSignal;
}

export type StdinCommandOutcome =
  | {
      kind: "exit";
      exitCode: number | null;
      signal: NodeJS.Signals | null;
      stdout: string;
      stderrTail: string;
    }
  | { kind: "timeout"; stderrTail: string }
  | { kind: "output-limit"; stderrTail: string }
  | { kind: "spawn-error"; error: Error; stderrTail: string };

/**
 * Resolves with how the command ended; never rejects except with `signal`'s reason after an abort
 * (the process group is killed first). Runs without a shell: `command` and `args` go to the OS
 * as they are, with the inherited environment. Whatever the command left running is killed when
 * it exits.
 */
export async function runStdinCommand(options: StdinCommandOptions): Promise<StdinCommandOutcome> {
  const stdout = new BoundedText(options.maxOutputChars);
  const stderr = new TailText(STDERR_TAIL_CHARS);
  const ending = await runInProcessGroup({
    command: options.command,
    args: options.args,
    cwd: options.cwd,
    input: options.input,
    timeoutMs: options.timeoutMs,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    onStdout: (chunk) => stdout.append(chunk),
    onStderr: (chunk) => stderr.append(chunk),
    killGroupOnExit: true,
  });
  const stderrTail = stderr.text();
  switch (ending.kind) {
    case "exit":
      return { ...ending, stdout: stdout.text(), stderrTail };
    case "stopped":
      return { kind: "output-limit", stderrTail };
    case "spawn-error":
      return { kind: "spawn-error", error: ending.error, stderrTail };
    case "timeout":
      return { kind: "timeout", stderrTail };
  }
}

/** Text up to a cap; `append` answers false once the cap is passed (the rest is dropped). */
class BoundedText {
  private readonly chunks: string[] = [];
  private length = 0;

  constructor(private readonly capChars: number) {}

  append(chunk: string): boolean {
    this.length += chunk.length;
    if (this.length > this.capChars) return false;
    this.chunks.push(chunk);
    return true;
  }

  text(): string {
    return this.chunks.join("");
  }
}

/** The last `capChars` characters written. */
class TailText {
  private tail = "";

  constructor(private readonly capChars: number) {}

  append(chunk: string): void {
    this.tail += chunk;
    // Trim lazily so a stream of small chunks does not copy the tail on every append.
    if (this.tail.length > this.capChars * 2) this.tail = this.tail.slice(-this.capChars);
  }

  text(): string {
    return this.tail.slice(-this.capChars);
  }
}
