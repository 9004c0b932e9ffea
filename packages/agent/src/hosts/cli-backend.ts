/**
 * A generic command-line backend as a context-engine host: a configured command gets the prompt on
 * stdin and prints the reply on stdout. It keeps its own context, so it declares only the
 * capabilities it has (by default no `assemble-before-prompt`), and engines that need more are
 * refused before the command starts.
 */
import {
  ALL_HOST_CAPABILITIES,
  assertContextEngineHostSupport,
  type ContextEngineHostCapability,
  type ContextEngineHostDescriptor,
  type ContextEngineInfo,
  InvalidOptionError,
} from "@clew/core";
import { CliBackendError } from "./cli-backend-error.js";
import { runStdinCommand, type StdinCommandOutcome } from "./stdin-command.js";

export const DEFAULT_CLI_BACKEND_CAPABILITIES: readonly ContextEngineHostCapability[] = [
  "bootstrap",
  "after-turn",
  "maintain",
];

export const DEFAULT_CLI_BACKEND_TIMEOUT_MS = 300_000;

/** Most reply characters read from stdout; a larger reply fails with `output-limit`. */
export const CLI_BACKEND_MAX_REPLY_CHARS = 4_000_000;

export interface CliBackendConfig {
  /** Program to run (a path or a name looked up in `PATH`); no shell is involved. */
  command: string;
  args?: string[];
  /** Default `DEFAULT_CLI_BACKEND_TIMEOUT_MS` (5 minutes). */
  timeoutMs?: number;
  /** What the backend does for engines; default `DEFAULT_CLI_BACKEND_CAPABILITIES`. */
  capabilities?: ContextEngineHostCapability[];
}

/** A configured backend: its id (the key it is configured under) and its settings. */
export interface CliBackend extends CliBackendConfig {
  id: string;
}

export interface CliBackendTurnParams {
  backend: CliBackend;
  /** The engine selected for this run; its `agent-run` requirements are checked first. */
  engineInfo: ContextEngineInfo;
  prompt: string;
  /** Working directory of the command; must exist. */
  cwd: string;
  signal?: AbortSignal;
}

export interface CliBackendReply {
  /** stdout, without one trailing line break. */
  text: string;
  /** The last part of stderr (a backend may log there even when it succeeds). */
  stderrTail: string;
}

/** `{ id: "cli:<id>", label: 'CLI backend "<id>"', capabilities }`. */
export function cliBackendDescriptor(
  id: string,
  capabilities: readonly ContextEngineHostCapability[] = DEFAULT_CLI_BACKEND_CAPABILITIES,
): ContextEngineHostDescriptor {
  return { id: `cli:${id}`, label: `CLI backend "${id}"`, capabilities: [...capabilities] };
}

/**
 * Runs one turn on a CLI backend. Order and guarantees:
 * 1. the backend config is checked (`InvalidOptionError` naming the field, e.g.
 *    `cliBackends.<id>.timeoutMs`);
 * 2. the engine's `agent-run` host requirements are checked against the backend's capabilities:
 *    a missing one throws `ContextEngineHostUnsupportedError` (with the engine's
 *    `unsupportedMessage`) and the command is never started;
 * 3. the command runs in `cwd` with `prompt` on stdin; exit code 0 resolves with its stdout.
 *
 * Throws `CliBackendError` when the command cannot start, exits non-zero or by a signal (exit
 * code and stderr tail in the message), passes `timeoutMs`, or prints more than
 * `CLI_BACKEND_MAX_REPLY_CHARS`. An abort rejects with `signal`'s reason. On timeout, abort or
 * exit the command's whole process group is killed: nothing it started outlives the turn.
 */
export async function runCliBackendTurn(params: CliBackendTurnParams): Promise<CliBackendReply> {
  const { backend } = params;
  const capabilities = validateCliBackend(backend);
  assertContextEngineHostSupport(
    params.engineInfo,
    "agent-run",
    cliBackendDescriptor(backend.id, capabilities),
  );
  const outcome = await runStdinCommand({
    command: backend.command,
    args: backend.args ?? [],
    cwd: params.cwd,
    input: params.prompt,
    timeoutMs: backend.timeoutMs ?? DEFAULT_CLI_BACKEND_TIMEOUT_MS,
    maxOutputChars: CLI_BACKEND_MAX_REPLY_CHARS,
    ...(params.signal === undefined ? {} : { signal: params.signal }),
  });
  return replyOf(backend, params.cwd, outcome);
}

/** Checks the config and answers the capabilities it declares. */
function validateCliBackend(backend: CliBackend): readonly ContextEngineHostCapability[] {
  if (typeof backend.id !== "string" || backend.id.trim() === "") {
    throw new InvalidOptionError("cliBackends.<id>", backend.id, "a non-empty backend id");
  }
  const field = (name: string) => `cliBackends.${backend.id}.${name}`;
  if (typeof backend.command !== "string" || backend.command.trim() === "") {
    throw new InvalidOptionError(field("command"), backend.command, "a non-empty command");
  }
  if (backend.args !== undefined && !(Array.isArray(backend.args) && backend.args.every(isString))) {
    throw new InvalidOptionError(field("args"), backend.args, "an array of strings");
  }
  const { timeoutMs } = backend;
  if (
    timeoutMs !== undefined &&
    !(Number.isFinite(timeoutMs) && timeoutMs > 0 && timeoutMs <= 2_147_483_647)
  ) {
    throw new InvalidOptionError(field("timeoutMs"), timeoutMs, "a positive number of milliseconds");
  }
  const capabilities: unknown = backend.capabilities ?? DEFAULT_CLI_BACKEND_CAPABILITIES;
  const expected = `an array of host capabilities from: ${ALL_HOST_CAPABILITIES.join(", ")}`;
  if (!Array.isArray(capabilities))
    throw new InvalidOptionError(field("capabilities"), capabilities, expected);
  for (const capability of capabilities) {
    if (!ALL_HOST_CAPABILITIES.includes(capability)) {
      throw new InvalidOptionError(field("capabilities"), capability, expected);
    }
  }
  return capabilities as ContextEngineHostCapability[];
}

function isString(value: unknown): value is string {
  return typeof value === "string";
}

function replyOf(backend: CliBackend, cwd: string, outcome: StdinCommandOutcome): CliBackendReply {
  const name = `CLI backend "${backend.id}" (${backend.command})`;
  const { stderrTail } = outcome;
  const stderrPart = stderrTail.trim() === "" ? "" : `\nstderr (tail):\n${stderrTail.trimEnd()}`;
  switch (outcome.kind) {
    case "exit": {
      if (outcome.exitCode === 0) return { text: withoutFinalLineBreak(outcome.stdout), stderrTail };
      const ending =
        outcome.exitCode === null
          ? `was killed by signal ${outcome.signal}`
          : `exited with code ${outcome.exitCode}`;
      throw new CliBackendError(`${name} ${ending}${stderrPart}`, {
        backendId: backend.id,
        failure: "exit",
        exitCode: outcome.exitCode,
        signal: outcome.signal,
        stderrTail,
      });
    }
    case "timeout":
      throw new CliBackendError(
        `${name} timed out after ${backend.timeoutMs ?? DEFAULT_CLI_BACKEND_TIMEOUT_MS} ms and was killed${stderrPart}`,
        { backendId: backend.id, failure: "timeout", stderrTail },
      );
    case "output-limit":
      throw new CliBackendError(
        `${name} printed more than ${CLI_BACKEND_MAX_REPLY_CHARS} characters and was killed${stderrPart}`,
        { backendId: backend.id, failure: "output-limit", stderrTail },
      );
    case "spawn-error":
      throw new CliBackendError(`${name} could not start in ${cwd}: ${outcome.error.message}`, {
        backendId: backend.id,
        failure: "spawn",
        stderrTail,
        cause: outcome.error,
      });
  }
}

function withoutFinalLineBreak(text: string): string {
  if (text.endsWith("\r\n")) return text.slice(0, -2);
  if (text.endsWith("\n")) return text.slice(0, -1);
  return text;
}
