/**
 * HTTP requests that send the path exactly as written. `fetch` normalises `..` and `%2e%2e`
 * before sending, which would hide the traversal attempts the gateway must refuse.
 */
import { request as httpRequest, type OutgoingHttpHeaders } from "node:http";

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  json(): unknown;
}

export function rawRequest(
  baseUrl: string,
  options: { method?: string; path: string; headers?: OutgoingHttpHeaders; body?: string | Buffer },
): Promise<RawResponse> {
  const base = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      {
        host: base.hostname,
        port: base.port,
        method: options.method ?? "GET",
        path: options.path,
        headers: options.headers,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () => {
          const body = Buffer.concat(chunks).toString("utf8");
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body,
            json: () => JSON.parse(body),
          });
        });
        response.on("error", reject);
      },
    );
    request.on("error", reject);
    request.end(options.body);
  });
}
