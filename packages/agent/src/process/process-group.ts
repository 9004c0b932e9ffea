/**
 * One command in its own process group, so a timeout, an abort or an output limit stops
 * everything it started, not just its first process. The exec tool and CLI backends both run
 * commands this way; they differ only in what they feed and keep.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { abortReason } from "@clew/core";

/**
 * How long to keep reading after the command exits. A background job that inherited the pipes
 * keeps them open; past this the call stops waiting for it.
 */
const OUTPUT_DRAIN_MS = 200;

export interface ProcessGroupOptions {
  command: string;
  args: readonly string[];
  cwd: string;
  /** Written to stdin, which is then closed; without it stdin is not connected. */
  input?: string;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Each stdout chunk; answering false stops the command (an output limit). */
  onStdout(chunk: string): boolean | undefined;
  onStderr(chunk: string): void;
  /** Kill what the command left running once it exited (default false: background jobs live on). */
  killGroupOnExit?: boolean;
}

export type ProcessEnding =
  | { kind: "exit"; exitCode: number | null; signal: NodeJS.Signals | null }
  | { kind: "timeout" }
  | { kind: "stopped" }
  | { kind: "spawn-error"; error: Error };

/**
 * Resolves with how the command ended; never rejects except with `signal`'s reason after an abort
 * (the group is killed first). Runs without a shell: `command` and `args` go to the OS as they
 * are, with the inherited environment.
 */
export function runInProcessGroup(options: ProcessGroupOptions): Promise<ProcessEnding> {
  const { signal } = options;
  if (signal?.aborted) return Promise.reject(abortReason(signal));
  return new Promise((resolve, reject) => {
    const child = spawn(options.command, [...options.args], {
      cwd: options.cwd,
      env: process.env,
      stdio: [options.input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
      detached: true,
    });
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
    const stop = (ending: ProcessEnding) => {
      killProcessGroup(child);
      finish(() => resolve(ending));
    };
    const onAbort = () => {
      killProcessGroup(child);
      finish(() => reject(signal === undefined ? new Error("Command aborted") : abortReason(signal)));
    };
    const timeoutTimer = setTimeout(() => stop({ kind: "timeout" }), options.timeoutMs);
    signal?.addEventListener("abort", onAbort, { once: true });
    child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
      if (options.onStdout(chunk) === false) stop({ kind: "stopped" });
    });
    child.stderr?.setEncoding("utf8").on("data", (chunk: string) => options.onStderr(chunk));
    if (options.input !== undefined) {
      // EPIPE when the command exits without reading its input; how it ended says what matters.
      child.stdin?.on("error", () => {});
      child.stdin?.end(options.input);
    }
    child.once("error", (error) => stop({ kind: "spawn-error", error }));
    child.once("exit", (exitCode, exitSignal) => {
      const conclude = () => {
        if (options.killGroupOnExit === true) killProcessGroup(child);
        finish(() => resolve({ kind: "exit", exitCode, signal: exitSignal }));
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
