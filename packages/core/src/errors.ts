/**
 * Errors Clew throws at its API edges. Inside loops and streams, failures are data (results with
 * `ok: false`, error tool results); these classes are for callers that must act on a failure.
 *
 * Every class carries a stable `code`, a `category` saying whose fault it is, and the data a caller
 * needs. `isClewError` works across module copies because it checks a marker, not `instanceof`.
 * Not in the hierarchy: engine errors (rethrown as they are, so stacks point at the engine) and
 * abort reasons (rethrown as the caller's `signal.reason`).
 *
 * To add a class: extend `ClewError`, pick a `code` in snake_case, add the fields a caller reads.
 */

const clewErrorMarker = Symbol.for("clew.error");

export type ClewErrorCategory = "user" | "system" | "third_party";

export class ClewError extends Error {
  readonly code: string;
  readonly category: ClewErrorCategory;
  readonly [clewErrorMarker] = true;

  constructor(message: string, options: { code: string; category: ClewErrorCategory; cause?: unknown }) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = options.code;
    this.category = options.category;
  }
}

export function isClewError(value: unknown): value is ClewError {
  return typeof value === "object" && value !== null && clewErrorMarker in value;
}

/** A registry or selection problem the user fixes in config or by installing a plugin. */
export class ContextEngineNotRegisteredError extends ClewError {
  readonly engineId: string;
  readonly availableEngineIds: string[];

  constructor(engineId: string, availableEngineIds: string[]) {
    const available = availableEngineIds.length > 0 ? availableEngineIds.join(", ") : "(none)";
    super(`Context engine "${engineId}" is not registered. Available engines: ${available}`, {
      code: "context_engine_not_registered",
      category: "user",
    });
    this.engineId = engineId;
    this.availableEngineIds = availableEngineIds;
  }
}

/** A factory returned something that is not a `ContextEngine`. */
export class ContextEngineContractError extends ClewError {
  readonly engineId: string;
  readonly issues: string[];

  constructor(message: string, engineId: string, issues: string[]) {
    super(message, { code: "context_engine_contract_invalid", category: "third_party" });
    this.engineId = engineId;
    this.issues = issues;
  }
}

/** The host lacks a capability the engine requires for an operation (fail closed, no fallback). */
export class ContextEngineHostUnsupportedError extends ClewError {
  readonly engineId: string;
  readonly operation: string;
  readonly missingCapabilities: string[];

  constructor(
    message: string,
    details: { engineId: string; operation: string; missingCapabilities: string[] },
  ) {
    super(message, { code: "context_engine_host_unsupported", category: "user" });
    this.engineId = details.engineId;
    this.operation = details.operation;
    this.missingCapabilities = details.missingCapabilities;
  }
}

/** A subagent could not start because the engine's preparation failed. */
export class SubagentPreparationError extends ClewError {
  readonly engineId: string;

  constructor(engineId: string, cause: unknown) {
    super(`Context engine subagent preparation failed: ${describeError(cause)}`, {
      code: "subagent_preparation_failed",
      category: "third_party",
      cause,
    });
    this.engineId = engineId;
  }
}

/** The prompt does not fit the model's window and compaction could not make it fit. */
export class ContextOverflowError extends ClewError {
  readonly estimatedTokens: number | undefined;
  readonly budgetTokens: number | undefined;

  constructor(
    message: string,
    details: { estimatedTokens?: number; budgetTokens?: number; cause?: unknown } = {},
  ) {
    super(message, { code: "context_overflow", category: "user", cause: details.cause });
    this.estimatedTokens = details.estimatedTokens;
    this.budgetTokens = details.budgetTokens;
  }
}

/** A delegated compaction named a successor session that is not the caller's. */
export class SessionTargetConflictError extends ClewError {
  constructor(message: string) {
    super(message, { code: "session_target_conflict", category: "third_party" });
  }
}

/** The message of any thrown value, for log lines and reasons. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  if (typeof error === "string") return error;
  try {
    return JSON.stringify(error) ?? String(error);
  } catch {
    return String(error);
  }
}

/** No transcript exists for this session id. */
export class UnknownSessionError extends ClewError {
  readonly agentId: string;
  readonly sessionId: string;

  constructor(agentId: string, sessionId: string, location?: string) {
    super(
      `Unknown session "${sessionId}" for agent "${agentId}"${location ? ` (no file at ${location})` : ""}`,
      {
        code: "unknown_session",
        category: "user",
      },
    );
    this.agentId = agentId;
    this.sessionId = sessionId;
  }
}

/** Another live process holds the session's writer lock. */
export class SessionLockedError extends ClewError {
  readonly sessionId: string;
  readonly lockPath: string;
  readonly holderPid: number | undefined;

  constructor(sessionId: string, lockPath: string, holderPid: number | undefined) {
    const holder = holderPid === undefined ? "another process" : `process ${holderPid}`;
    super(
      `Session "${sessionId}" is locked by ${holder} (${lockPath}); only one writer may append to a session`,
      {
        code: "session_locked",
        category: "user",
      },
    );
    this.sessionId = sessionId;
    this.lockPath = lockPath;
    this.holderPid = holderPid;
  }
}

/** A transcript could not be read at all (permissions, not a transcript, bad header). */
export class TranscriptReadError extends ClewError {
  readonly location: string;
  readonly line: number | undefined;

  constructor(message: string, location: string, options: { line?: number; cause?: unknown } = {}) {
    super(`${location}${options.line === undefined ? "" : `:${options.line}`}: ${message}`, {
      code: "transcript_unreadable",
      category: "user",
      cause: options.cause,
    });
    this.location = location;
    this.line = options.line;
  }
}

/** A session id that cannot name a file safely. */
export class InvalidSessionIdError extends ClewError {
  readonly sessionId: string;

  constructor(sessionId: string) {
    super(
      `Invalid session id "${sessionId}": use letters, digits, ".", "_" or "-", starting with a letter or digit, at most 128 characters`,
      {
        code: "invalid_session_id",
        category: "user",
      },
    );
    this.sessionId = sessionId;
  }
}

/** Why a transcript refused a write. */
export type TranscriptWriteFailure =
  | "read-only"
  | "closed"
  | "invalid-entry"
  | "exists"
  | "legacy-format"
  | "io";

/**
 * A transcript refused a write: opened read-only, already closed, an entry that cannot be stored,
 * a session that already exists, or a legacy file that must be imported before Clew appends to it.
 * Nothing was written when this is thrown, except for `io`, where the file may end in a torn line
 * that the next load reports.
 */
export class TranscriptWriteError extends ClewError {
  readonly location: string;
  readonly reason: TranscriptWriteFailure;

  constructor(message: string, location: string, reason: TranscriptWriteFailure, cause?: unknown) {
    super(`${location}: ${message}`, {
      code: "transcript_not_writable",
      category: reason === "io" ? "system" : "user",
      cause,
    });
    this.location = location;
    this.reason = reason;
  }
}

/** An agent id that cannot name a folder safely. */
export class InvalidAgentIdError extends ClewError {
  readonly agentId: string;

  constructor(agentId: string) {
    super(
      `Invalid agent id "${agentId}": use letters, digits, ".", "_" or "-", starting with a letter or digit, at most 64 characters`,
      { code: "invalid_agent_id", category: "user" },
    );
    this.agentId = agentId;
  }
}

/**
 * The sessions index (`sessions.json`) cannot be read or would not hold a valid entry. A corrupt
 * index is never overwritten: every write refuses until the user repairs or moves the file.
 */
export class SessionIndexError extends ClewError {
  readonly location: string;

  constructor(message: string, location: string, cause?: unknown) {
    super(`${location}: ${message}`, { code: "session_index_invalid", category: "user", cause });
    this.location = location;
  }
}

/** `clew.json` (or another config file) cannot be used; names the file, line and field. */
export class ConfigError extends ClewError {
  readonly file: string;
  readonly problems: Array<{ path: string; message: string; line?: number }>;

  constructor(
    file: string,
    problems: Array<{ path: string; message: string; line?: number }>,
    cause?: unknown,
  ) {
    const lines = problems.map((problem) => {
      const where = problem.line === undefined ? file : `${file}:${problem.line}`;
      return `${where}: ${problem.path ? `${problem.path}: ` : ""}${problem.message}`;
    });
    super(`Invalid config:\n${lines.join("\n")}`, { code: "config_invalid", category: "user", cause });
    this.file = file;
    this.problems = problems;
  }
}

/** A caller passed an option or setting outside what it accepts (history limit, pruning settings). */
export class InvalidOptionError extends ClewError {
  /** Dotted path of the option, e.g. `contextPruning.softTrimRatio`. */
  readonly option: string;
  readonly value: unknown;

  constructor(option: string, value: unknown, expected: string) {
    super(`Invalid ${option}: ${describeOptionValue(value)} (expected ${expected})`, {
      code: "invalid_option",
      category: "user",
    });
    this.option = option;
    this.value = value;
  }
}

function describeOptionValue(value: unknown): string {
  if (typeof value === "number" || typeof value === "boolean" || value === undefined) return String(value);
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/** A summarizer answered with nothing; compaction falls back to another summarizer. */
export class EmptySummaryError extends ClewError {
  readonly summarizerId: string;

  constructor(summarizerId: string) {
    super(`Summarizer "${summarizerId}" returned an empty summary`, {
      code: "summary_empty",
      category: "third_party",
    });
    this.summarizerId = summarizerId;
  }
}

/**
 * The gateway refuses to start with these options: a bind address other than loopback without a
 * token, an empty token, or a port, size or timeout outside its range. Nothing was bound.
 */
export class GatewayConfigError extends ClewError {
  /** The option at fault, e.g. `host` or `maxBodyBytes`. */
  readonly option: string;

  constructor(option: string, message: string) {
    super(`Invalid gateway option ${option}: ${message}`, {
      code: "gateway_config_invalid",
      category: "user",
    });
    this.option = option;
  }
}

/**
 * No usable model: none configured, a malformed `provider/model-id`, an unknown provider, a
 * provider entry without `api` or `baseUrl`, or a missing API key. The message says exactly which
 * setting or environment variable to set; `setting` holds it (a dotted config path such as
 * `agents.defaults.model`, or an environment variable name such as `OPENAI_API_KEY`).
 */
export class ModelConfigError extends ClewError {
  readonly setting: string;

  constructor(message: string, setting: string) {
    super(message, { code: "model_config_invalid", category: "user" });
    this.setting = setting;
  }
}

/**
 * A model call answered with an error where the caller needs a thrown error (e.g. a summary
 * call). `providerMessage` is the provider's error text; `isOverflow` tells a context-overflow
 * error apart. Aborts are not reported with this class: they reject with the signal's reason.
 */
export class ModelCallError extends ClewError {
  /** `provider/model-id`. */
  readonly model: string;
  readonly providerMessage: string;
  readonly isOverflow: boolean;

  constructor(model: string, providerMessage: string, isOverflow: boolean) {
    super(`Model "${model}" failed: ${providerMessage}`, {
      code: "model_call_failed",
      category: "third_party",
    });
    this.model = model;
    this.providerMessage = providerMessage;
    this.isOverflow = isOverflow;
  }
}
