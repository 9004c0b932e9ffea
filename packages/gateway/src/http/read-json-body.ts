/**
 * Reading a request body as JSON, bounded. A body over the limit is refused as soon as the limit
 * is known to be exceeded (from `content-length`, or while streaming): nothing more is kept in
 * memory, and the connection is closed after the answer.
 */
import type { IncomingMessage } from "node:http";
import { RequestProblem } from "../request-problem.js";

/** How long an oversized upload may keep sending (discarded) while the 413 goes out. */
const OVERSIZED_LINGER_MS = 1_000;

/**
 * The parsed body, or undefined when the request has no body and no content type. Throws
 * `RequestProblem` 415 (not JSON), 413 (over `maxBytes`) or 400 (`field: "body"`, malformed).
 */
export async function readJsonBody(request: IncomingMessage, maxBytes: number): Promise<unknown> {
  const contentType = request.headers["content-type"];
  if (contentType === undefined && !hasBody(request)) return undefined;
  if (!isJsonContentType(contentType)) {
    throw new RequestProblem(415, "unsupported_media_type", "Send the body as application/json");
  }
  const declared = Number(request.headers["content-length"]);
  if (Number.isFinite(declared) && declared > maxBytes) {
    discardRest(request);
    throw tooLarge(maxBytes);
  }
  const bytes = await collect(request, maxBytes);
  return parseJson(bytes);
}

function hasBody(request: IncomingMessage): boolean {
  const length = request.headers["content-length"];
  if (length !== undefined) return Number(length) > 0;
  return request.headers["transfer-encoding"] !== undefined;
}

function isJsonContentType(header: string | undefined): boolean {
  if (header === undefined) return false;
  const mediaType = header.split(";")[0]?.trim().toLowerCase();
  return mediaType === "application/json";
}

function collect(request: IncomingMessage, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > maxBytes) {
        cleanup();
        chunks.length = 0;
        discardRest(request);
        reject(tooLarge(maxBytes));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(Buffer.concat(chunks));
    };
    const onFailure = () => {
      cleanup();
      reject(new RequestProblem(400, "request_aborted", "The request body ended early", "body"));
    };
    const cleanup = () => {
      request.off("data", onData);
      request.off("end", onEnd);
      request.off("error", onFailure);
      request.off("aborted", onFailure);
    };
    request.on("data", onData);
    request.on("end", onEnd);
    request.on("error", onFailure);
    request.on("aborted", onFailure);
  });
}

/**
 * Drops the rest of an oversized upload without keeping it, for a short while, so the client can
 * read the 413 before the socket closes; a reset right away can destroy the answer in flight.
 */
function discardRest(request: IncomingMessage): void {
  const timer = setTimeout(() => request.socket.destroy(), OVERSIZED_LINGER_MS);
  timer.unref();
  request.on("data", () => {});
  request.once("end", () => clearTimeout(timer));
  request.once("close", () => clearTimeout(timer));
  request.resume();
}

function parseJson(bytes: Buffer): unknown {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new RequestProblem(400, "invalid_json", "The body is not valid UTF-8", "body");
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    const detail = error instanceof Error ? error.message : "parse error";
    throw new RequestProblem(400, "invalid_json", `The body is not valid JSON: ${detail}`, "body");
  }
}

function tooLarge(maxBytes: number): RequestProblem {
  return new RequestProblem(413, "payload_too_large", `The body is larger than ${maxBytes} bytes`);
}
