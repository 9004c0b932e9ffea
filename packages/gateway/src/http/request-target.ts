/**
 * The request target, split without normalisation. `new URL()` would resolve `..` and `%2e%2e`
 * segments before routing, hiding a traversal attempt behind a different, valid-looking path; the
 * gateway wants to see and refuse it.
 */
import { invalidField, RequestProblem } from "../request-problem.js";

export interface RequestTarget {
  /** The raw path, still percent-encoded; safe to log (the query, which may hold a token, is not in it). */
  pathname: string;
  /** Raw path segments after the leading "/". */
  segments: string[];
  query: URLSearchParams;
}

const MAX_LOGGED_PATH = 200;

export function parseRequestTarget(rawUrl: string | undefined): RequestTarget {
  const url = rawUrl ?? "/";
  const queryStart = url.indexOf("?");
  const pathname = queryStart === -1 ? url : url.slice(0, queryStart);
  const query = new URLSearchParams(queryStart === -1 ? "" : url.slice(queryStart + 1));
  if (!pathname.startsWith("/")) throw new RequestProblem(404, "not_found", "No such route");
  return { pathname, segments: pathname.slice(1).split("/"), query };
}

/** Refuses `.`, `..` and segments hiding a separator, plain or percent-encoded, anywhere in the path. */
export function rejectDotSegments(segments: readonly string[]): void {
  for (const segment of segments) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      throw invalidField("path", "The path is not valid percent-encoding");
    }
    if (decoded === "." || decoded === ".." || /[/\\]/.test(decoded)) {
      throw invalidField("path", "The path must not contain dot segments or encoded separators");
    }
  }
}

/** The path as it goes into log lines: bounded, so a huge URL cannot bloat the log. */
export function loggablePath(target: string | undefined): string {
  const url = target ?? "/";
  const queryStart = url.indexOf("?");
  const pathname = queryStart === -1 ? url : url.slice(0, queryStart);
  return pathname.length > MAX_LOGGED_PATH ? `${pathname.slice(0, MAX_LOGGED_PATH)}…` : pathname;
}
