/** Writing JSON answers. Every body the gateway sends, errors included, is JSON. */
import type { ServerResponse } from "node:http";
import type { RequestProblem } from "../request-problem.js";

const COMMON_HEADERS = { "cache-control": "no-store", "x-content-type-options": "nosniff" } as const;

export function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  // The client left; there is no one to answer.
  if (response.destroyed) return;
  const payload = Buffer.from(JSON.stringify(body), "utf8");
  response.writeHead(status, {
    ...COMMON_HEADERS,
    ...headers,
    "content-type": "application/json; charset=utf-8",
    "content-length": String(payload.length),
  });
  response.end(payload);
}

export function sendNoContent(response: ServerResponse): void {
  response.writeHead(204, COMMON_HEADERS);
  response.end();
}

export function sendProblem(
  response: ServerResponse,
  problem: RequestProblem,
  headers: Record<string, string> = {},
): void {
  sendJson(response, problem.status, { error: problem.toBody() }, headers);
}
