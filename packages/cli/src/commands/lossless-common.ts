/** What the `clew lossless` commands share: the store's path, session references, numbers. */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { agentDir, resolveClewHome } from "@clew/core";
import {
  LOSSLESS_DATABASE_FILE,
  openSqliteStore,
  openSqliteStoreReadOnly,
  type SqliteLosslessStore,
} from "@clew/engine-lossless";
import { openCliContext } from "../context.js";
import { type CliIo, CliUsageError } from "../io.js";

export interface LosslessAgentOptions {
  agent: string;
  json?: boolean;
}

/** `<home>/agents/<agent>/lossless.db`; a usage error naming the path when there is none. */
function losslessStorePath(io: CliIo, agentId: string): string {
  const path = join(agentDir(resolveClewHome(io.env), agentId), LOSSLESS_DATABASE_FILE);
  if (!existsSync(path)) {
    throw new CliUsageError(
      `no lossless store for agent "${agentId}" at ${path} (the lossless engine has not run for this agent)`,
    );
  }
  return path;
}

/** A session key from the sessions index becomes its id; anything else is taken as an id. */
export async function sessionIdOf(io: CliIo, agentId: string, reference: string): Promise<string> {
  const context = await openCliContext(io);
  const entry = await context.index(agentId).get(reference);
  return entry?.sessionId ?? reference;
}

export function positiveInteger(text: string, flag: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) {
    throw new CliUsageError(`${flag} must be a positive whole number, got "${text}"`);
  }
  return value;
}

/**
 * Runs `body` over the agent's store, opened read-only (safe while a gateway writes to it) or for
 * writing (prune, vacuum), and closes it whatever `body` does.
 */
export async function withLosslessStore<Result>(
  io: CliIo,
  agentId: string,
  access: "read" | "write",
  body: (store: SqliteLosslessStore, path: string) => Promise<Result>,
): Promise<Result> {
  const path = losslessStorePath(io, agentId);
  return withStoreAt(path, access, (store) => body(store, path));
}

async function withStoreAt<Result>(
  path: string,
  access: "read" | "write",
  body: (store: SqliteLosslessStore) => Promise<Result>,
): Promise<Result> {
  const store =
    access === "read"
      ? openSqliteStoreReadOnly(path)
      : openSqliteStore(path, { backgroundIndexDelayMs: false });
  try {
    return await body(store);
  } finally {
    await store.close();
  }
}

/** Sessions and messages of the store at `path`, read-only (for `clew doctor`). Throws the store's error. */
export function readLosslessStoreTotals(path: string): Promise<{ sessions: number; messages: number }> {
  return withStoreAt(path, "read", async (store) => {
    const totals = await store.storeTotals();
    return { sessions: totals.sessions, messages: totals.messages };
  });
}
