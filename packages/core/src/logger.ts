/**
 * The logging seam. Core code logs through this small interface so tests can capture lines and
 * applications can plug in their own sink. The default writes structured JSON lines with pino.
 *
 * Logging never throws into the caller: a failing sink is the sink's problem.
 */
import { pino } from "pino";

export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

export type LogLevel = "debug" | "info" | "warn" | "error";

/** Structured logs on stderr, so stdout stays free for command output. */
export function createPinoLogger(options: { level?: LogLevel; name?: string } = {}): Logger {
  const instance = pino(
    { name: options.name ?? "clew", level: options.level ?? process.env.CLEW_LOG_LEVEL ?? "info" },
    pino.destination(2),
  );
  const write = (level: LogLevel) => (message: string, fields?: LogFields) => {
    if (fields === undefined) instance[level](message);
    else instance[level](fields, message);
  };
  return { debug: write("debug"), info: write("info"), warn: write("warn"), error: write("error") };
}

export interface LogRecord {
  level: LogLevel;
  message: string;
  fields?: LogFields;
}

/** Keeps every line in memory; for tests and for commands that show what happened. */
export class MemoryLogger implements Logger {
  readonly records: LogRecord[] = [];

  debug(message: string, fields?: LogFields): void {
    this.push("debug", message, fields);
  }
  info(message: string, fields?: LogFields): void {
    this.push("info", message, fields);
  }
  warn(message: string, fields?: LogFields): void {
    this.push("warn", message, fields);
  }
  error(message: string, fields?: LogFields): void {
    this.push("error", message, fields);
  }

  messages(level?: LogLevel): string[] {
    return this.records
      .filter((record) => level === undefined || record.level === level)
      .map((r) => r.message);
  }

  private push(level: LogLevel, message: string, fields?: LogFields): void {
    this.records.push(fields === undefined ? { level, message } : { level, message, fields });
  }
}

export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };
