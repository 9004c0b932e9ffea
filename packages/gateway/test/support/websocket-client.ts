/** A real `ws` client with helpers to await upgrades and JSON messages, all bounded in time. */
import { type ClientOptions, WebSocket } from "ws";

const WAIT_MS = 5_000;

export function webSocketUrl(httpUrl: string, query = ""): string {
  return `${httpUrl.replace(/^http/, "ws")}/v1/ws${query}`;
}

/** Opens a connection, or rejects with the HTTP status the upgrade was refused with. */
export function connectWebSocket(url: string, options: ClientOptions = {}): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, options);
    socket.once("open", () => resolve(socket));
    socket.once("unexpected-response", (_request, response) => {
      reject(new UpgradeRefused(response.statusCode ?? 0));
      socket.terminate();
    });
    socket.once("error", reject);
  });
}

export class UpgradeRefused extends Error {
  constructor(readonly status: number) {
    super(`upgrade refused with ${status}`);
  }
}

/** The status an upgrade was refused with, or 101 when it was accepted. */
export async function upgradeStatus(url: string, options: ClientOptions = {}): Promise<number> {
  try {
    const socket = await connectWebSocket(url, options);
    socket.terminate();
    return 101;
  } catch (error) {
    if (error instanceof UpgradeRefused) return error.status;
    throw error;
  }
}

/** Collects every JSON message the socket receives. */
export class MessageLog {
  readonly messages: Array<Record<string, unknown>> = [];

  constructor(socket: WebSocket) {
    socket.on("message", (data) => this.messages.push(JSON.parse(String(data))));
  }

  /** Waits (bounded) for a message matching `predicate` and returns it. */
  async waitFor(predicate: (message: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> {
    const deadline = Date.now() + WAIT_MS;
    while (Date.now() < deadline) {
      const found = this.messages.find(predicate);
      if (found !== undefined) return found;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    throw new Error(`no matching message within ${WAIT_MS} ms; got ${JSON.stringify(this.messages)}`);
  }
}

/** Resolves with the close code once the socket closes (bounded). */
export function closed(socket: WebSocket): Promise<number> {
  return new Promise((resolve, reject) => {
    if (socket.readyState === WebSocket.CLOSED) {
      resolve(1006);
      return;
    }
    const timer = setTimeout(() => reject(new Error("socket did not close")), WAIT_MS);
    socket.once("close", (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}
