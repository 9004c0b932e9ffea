import { ClewError } from "@clew/core";

/**
 * Why a CLI backend turn produced no reply: `spawn` (the command could not start: not found, not
 * executable, missing cwd), `exit` (non-zero exit or killed by a signal), `timeout` (the backend's
 * `timeoutMs` passed; its process group was killed), `output-limit` (the reply exceeded the cap).
 * Aborts are not reported with this class: they reject with the signal's reason.
 */
export type CliBackendFailure = "spawn" | "exit" | "timeout" | "output-limit";

export class CliBackendError extends ClewError {
  readonly backendId: string;
  readonly failure: CliBackendFailure;
  /** `null` when the command did not exit on its own (spawn failure, timeout, signal). */
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  /** The last part of what the command wrote to stderr. */
  readonly stderrTail: string;

  constructor(
    message: string,
    details: {
      backendId: string;
      failure: CliBackendFailure;
      exitCode?: number | null;
      signal?: NodeJS.Signals | null;
      stderrTail?: string;
      cause?: unknown;
    },
  ) {
    super(message, {
      code: "cli_backend_failed",
      category: details.failure === "spawn" ? "user" : "third_party",
      cause: details.cause,
    });
    this.backendId = details.backendId;
    this.failure = details.failure;
    this.exitCode = details.exitCode ?? null;
    this.signal = details.signal ?? null;
    this.stderrTail = details.stderrTail ?? "";
  }
}
