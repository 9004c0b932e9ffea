/**
 * Runs one command with a text on stdin and collects what it prints. The command runs in its own
 * process group, so a timeout or an abort stops everything it started, not just its first process.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { abortReason } from "@clew/core";

/**
 * How long to keep reading after the command exits. A background job that inherited the pipes
 * keeps them open; past this the group is killed so the call does not wait for it.
 */
const OUTPUT_DRAIN_MS = 200;

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
 * as they are, with the inherited environment.
 */
export function runStdinCommand(options: StdinCommandOptions): Promise<StdinCommandOutcome> {
  const { signal } = options;
  if (signal?.aborted) return Promise.reject(abortReason(signal));
  return new Promise((resolve, reject) => {
    const child = spawn(options.command, [...options.args], {
      cwd: options.cwd,
      env: process.env,
      stdio: ["pipe", "pipe", "pipe"],
      detached: true,
    });
    const stdout = new BoundedText(options.maxOutputChars);
    const stderr = new TailText(STDERR_TAIL_CHARS);
    let settled = false;
    let drainTimer: NodeJS.Timeout | undefined;
    const finish = (settle: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timeoutTimer);
      clearTimeout(drainTimer);
      signal?.removeEventListener("abort", onAbort);
      child.stdout?.destroy();
      child.stderr?.destroy();
      settle();
    };
    const onAbort = () => {
      killProcessGroup(child);
      finish(() => reject(signal === undefined ? new Error("Command aborted") : abortReason(signal)));
    };
    const timeoutTimer = setTimeout(() => {
      killProcessGroup(child);
      finish(() => resolve({ kind: "timeout", stderrTail: stderr.text() }));
    }, options.timeoutMs);
    signal?.addEventListener("abort", onAbort, { once: true });

    child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
      if (stdout.append(chunk)) return;
      killProcessGroup(child);
      finish(() => resolve({ kind: "output-limit", stderrTail: stderr.text() }));
    });
    child.stderr?.setEncoding("utf8").on("data", (chunk: string) => stderr.append(chunk));
    // EPIPE when the command exits without reading its input; how it ended says what matters.
    child.stdin?.on("error", () => {});
    child.stdin?.end(options.input);

    child.once("error", (error) => {
      killProcessGroup(child);
      finish(() => resolve({ kind: "spawn-error", error, stderrTail: stderr.text() }));
    });
    child.once("exit", (exitCode, exitSignal) => {
      const conclude = () => {
        killProcessGroup(child);
        finish(() =>
          resolve({
            kind: "exit",
            exitCode,
            signal: exitSignal,
            stdout: stdout.text(),
            stderrTail: stderr.text(),
          }),
        );
      };
      child.once("close", conclude);
      drainTimer = setTimeout(conclude, OUTPUT_DRAIN_MS);
    });
  });
}

/** Kills the command's process group; the group may already be gone. */
function killProcessGroup(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, "SIGKILL");
  } catch {
    // ESRCH: everything in the group has already exited.
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
