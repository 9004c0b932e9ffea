/**
 * A request the gateway refuses, with the HTTP status and the `{ error: { code, message, field } }`
 * body it answers with. Internal to the gateway: handlers throw it, the HTTP and WebSocket edges
 * turn it into a response and it never reaches a caller of `startGateway`.
 */
import { describeError, isClewError, type Logger, UnknownSessionError } from "@clew/core";

export interface ProblemBody {
  code: string;
  message: string;
  field?: string;
}

export class RequestProblem extends Error {
  readonly status: number;
  readonly code: string;
  readonly field: string | undefined;

  constructor(status: number, code: string, message: string, field?: string) {
    super(message);
    this.name = "RequestProblem";
    this.status = status;
    this.code = code;
    this.field = field;
  }

  toBody(): ProblemBody {
    return this.field === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, field: this.field };
  }
}

/** A 400 naming the field at fault. */
export function invalidField(field: string, message: string): RequestProblem {
  return new RequestProblem(400, "invalid_request", message, field);
}

/**
 * Maps what a handler or the service threw to the answer the client gets. Unknown sessions are
 * 404; other user-caused Clew errors are 400 with their code; anything else is a 500 whose message
 * stays in the log, because internal error text may name files or configuration.
 */
export function toRequestProblem(error: unknown, logger: Logger): RequestProblem {
  if (error instanceof RequestProblem) return error;
  if (error instanceof UnknownSessionError || (isClewError(error) && error.code === "unknown_session")) {
    return new RequestProblem(404, "unknown_session", error.message, "session");
  }
  if (isClewError(error) && error.category === "user") {
    return new RequestProblem(400, error.code, error.message);
  }
  logger.error("gateway request failed", { error: describeError(error) });
  return new RequestProblem(500, "internal_error", "The gateway could not complete the request");
}
