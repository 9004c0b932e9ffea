/**
 * Errors of the inspection and upkeep API (`clew lossless ...`): what the user asked for does not
 * exist, or a value they typed is not understood. Category `user`: the fix is in the request.
 */
import { ClewError } from "@clew/core";

/** No session with this id in the store at `location`. */
export class LosslessSessionNotFoundError extends ClewError {
  readonly sessionId: string;
  readonly location: string;

  constructor(sessionId: string, location: string) {
    super(`No session "${sessionId}" in the lossless store ${location}`, {
      code: "lossless_session_not_found",
      category: "user",
    });
    this.sessionId = sessionId;
    this.location = location;
  }
}

/** No compaction pass or summary with this id in the store at `location`. */
export class LosslessRecordNotFoundError extends ClewError {
  readonly id: string;
  readonly location: string;

  constructor(id: string, location: string) {
    const kind = id.startsWith("pass_") ? "compaction pass" : id.startsWith("sum_") ? "summary" : "record";
    const hint =
      kind === "record" ? " (ids start with pass_ for compaction passes and sum_ for summaries)" : "";
    super(`No ${kind} "${id}" in the lossless store ${location}${hint}`, {
      code: "lossless_record_not_found",
      category: "user",
    });
    this.id = id;
    this.location = location;
  }
}

/** A duration such as `90d` could not be read. `source` names where it came from (`--older-than`). */
export class InvalidDurationError extends ClewError {
  readonly source: string;
  readonly value: string;

  constructor(source: string, value: string) {
    super(
      `Invalid ${source}: "${value}" (expected a positive whole number followed by h, d or w, such as 12h, 90d or 8w)`,
      { code: "invalid_duration", category: "user" },
    );
    this.source = source;
    this.value = value;
  }
}
