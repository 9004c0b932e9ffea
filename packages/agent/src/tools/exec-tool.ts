/**
 * `exec`: run a shell command in the workspace. The command runs in its own process group so a
 * timeout or an abort can kill everything it started, not just the shell.
 */
import { type Static, Type } from "typebox";
import { runInProcessGroup } from "../process/process-group.js";
import type { AgentTool } from "./tool.js";

export const DEFAULT_EXEC_TIMEOUT_MS = 120_000;
export const DEFAULT_OUTPUT_CAP_CHARS = 30_000;

const execParameters = Type.Object({
  command: Type.String({ description: "Shell command (/bin/sh -c), run in the workspace" }),
  timeoutSeconds: Type.Optional(Type.Number({ exclusiveMinimum: 0, description: "Timeout in seconds" })),
});

export type ExecToolParameters = Static<typeof execParameters>;

export interface ExecToolDetails {
  exitCode: number;
  /** Characters dropped from the middle of the output; 0 when it was returned whole. */
  omittedChars: number;
}

export interface ExecToolOptions {
  workspaceDir: string;
  /** Default timeout when the call gives none; defaults to 120 s. */
  timeoutMs?: number;
  /** Most characters of output returned; defaults to 30,000 (head and tail kept). */
  outputCapChars?: number;
}

/** A command that ran but did not succeed: a non-zero exit, a signal or a timeout. */
export class CommandFailedError extends Error {
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly timedOut: boolean;
  /** The (capped) output the command produced before it ended. */
  readonly output: string;

  constructor(
    message: string,
    details: { exitCode: number | null; signal: NodeJS.Signals | null; timedOut: boolean; output: string },
  ) {
    super(message);
    this.name = "CommandFailedError";
    this.exitCode = details.exitCode;
    this.signal = details.signal;
    this.timedOut = details.timedOut;
    this.output = details.output;
  }
}

/**
 * Creates the `exec` tool. Runs `/bin/sh -c <command>` with the workspace as cwd, the inherited
 * environment and stdin closed; stdout and stderr are interleaved as they arrive and capped.
 * Throws `CommandFailedError` for a non-zero exit ("Command exited with code N" plus the output),
 * a signal, or a timeout ("Command timed out after Xs" plus the partial output). On timeout or
 * abort the whole process group is killed; an abort rejects promptly with the signal's reason.
 */
export function createExecTool(options: ExecToolOptions): AgentTool<typeof execParameters, ExecToolDetails> {
  const defaultTimeoutMs = options.timeoutMs ?? DEFAULT_EXEC_TIMEOUT_MS;
  const outputCapChars = options.outputCapChars ?? DEFAULT_OUTPUT_CAP_CHARS;
  return {
    name: "exec",
    label: "Exec",
    description:
      `Run a shell command in the workspace. Output (stdout+stderr) is capped at ${outputCapChars} chars. ` +
      `Default timeout ${Math.round(defaultTimeoutMs / 1000)}s.`,
    parameters: execParameters,
    async execute(_toolCallId, params, signal) {
      const timeoutMs = params.timeoutSeconds === undefined ? defaultTimeoutMs : params.timeoutSeconds * 1000;
      const { exitCode, output } = await runCommand(params.command, {
        cwd: options.workspaceDir,
        timeoutMs,
        outputCapChars,
        signal,
      });
      const rendered = output.render();
      return {
        content: [{ type: "text", text: rendered === "" ? "(no output)" : rendered }],
        details: { exitCode, omittedChars: output.omittedChars() },
      };
    },
  };
}

interface RunOptions {
  cwd: string;
  timeoutMs: number;
  outputCapChars: number;
  signal: AbortSignal | undefined;
}

/** Resolves on exit code 0; every other ending rejects (see `createExecTool`). */
async function runCommand(
  command: string,
  options: RunOptions,
): Promise<{ exitCode: number; output: CappedOutput }> {
  const output = new CappedOutput(options.outputCapChars);
  const append = (chunk: string) => {
    output.append(chunk);
    return undefined;
  };
  const ending = await runInProcessGroup({
    command: "/bin/sh",
    args: ["-c", command],
    cwd: options.cwd,
    timeoutMs: options.timeoutMs,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    onStdout: append,
    onStderr: append,
  });
  if (ending.kind === "spawn-error") {
    throw new Error(`Could not run command in ${options.cwd}: ${ending.error.message}`, {
      cause: ending.error,
    });
  }
  if (ending.kind !== "exit") {
    const message = `Command timed out after ${formatSeconds(options.timeoutMs)}\n${output.render()}`;
    const failure = { exitCode: null, signal: null, timedOut: true, output: output.render() };
    throw new CommandFailedError(message.trimEnd(), failure);
  }
  return settleExit(ending.exitCode, ending.signal, output);
}

function settleExit(
  exitCode: number | null,
  exitSignal: NodeJS.Signals | null,
  output: CappedOutput,
): { exitCode: number; output: CappedOutput } {
  if (exitCode === 0) return { exitCode, output };
  const rendered = output.render();
  const ending = exitCode === null ? `was killed by signal ${exitSignal}` : `exited with code ${exitCode}`;
  const message = `Command ${ending}\n${rendered === "" ? "(no output)" : rendered}`;
  throw new CommandFailedError(message, { exitCode, signal: exitSignal, timedOut: false, output: rendered });
}

function formatSeconds(milliseconds: number): string {
  return `${Number((milliseconds / 1000).toFixed(3))}s`;
}

/**
 * Output kept within a character cap: the first half of the cap from the start, the last half
 * from the end, and a marker counting what was dropped between them.
 */
class CappedOutput {
  private readonly headLimit: number;
  private readonly tailLimit: number;
  private head = "";
  private tail = "";
  private totalChars = 0;

  constructor(capChars: number) {
    this.headLimit = Math.ceil(capChars / 2);
    this.tailLimit = Math.floor(capChars / 2);
  }

  append(chunk: string): void {
    this.totalChars += chunk.length;
    const headRoom = Math.max(0, this.headLimit - this.head.length);
    this.head += chunk.slice(0, headRoom);
    const rest = chunk.slice(headRoom);
    if (rest === "") return;
    this.tail += rest;
    // Trim lazily so a stream of small chunks does not copy the tail on every append.
    if (this.tail.length > this.tailLimit * 2) this.tail = this.tail.slice(-this.tailLimit);
  }

  omittedChars(): number {
    return Math.max(0, this.totalChars - this.head.length - this.tailLimit);
  }

  render(): string {
    const omitted = this.omittedChars();
    if (omitted === 0) return this.head + this.tail;
    const tail = this.tailLimit === 0 ? "" : this.tail.slice(-this.tailLimit);
    return `${this.head}\n[... ${omitted} chars omitted ...]\n${tail}`;
  }
}
