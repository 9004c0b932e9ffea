import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { describeError, formatBytes } from "@clew/core";
import { check, type DoctorCheck } from "./doctor-check.js";

/** The lossless engine's id, and the file it keeps in each agent folder. */
export const LOSSLESS_ENGINE_ID = "lossless";
export const LOSSLESS_STORE_FILE = "lossless.db";

/** Counts read from a lossless store; the caller opens it read-only (this package cannot). */
export interface LosslessStoreTotals {
  sessions: number;
  messages: number;
}

export type LosslessStoreReader = (path: string) => Promise<LosslessStoreTotals>;

export interface LosslessStoreCheckOptions {
  home: string;
  /** The engine the config selects; nothing is checked unless it is `lossless`. */
  selectedEngineId: string;
  /** Reads sessions and messages; without it only the size is shown. */
  readTotals?: LosslessStoreReader;
}

/**
 * One line per agent with a lossless store (`<home>/agents/<id>/lossless.db`): its path, bytes
 * on disk including the WAL and shared-memory files, and its sessions and messages. Only when
 * the selected engine is lossless. A store that cannot be read is a warning (the engine would
 * fail open to the host's messages). Never throws.
 */
export async function checkLosslessStores(options: LosslessStoreCheckOptions): Promise<DoctorCheck[]> {
  if (options.selectedEngineId !== LOSSLESS_ENGINE_ID) return [];
  const agentsRoot = join(options.home, "agents");
  let agentIds: string[];
  try {
    const entries = await readdir(agentsRoot, { withFileTypes: true });
    agentIds = entries.filter((entry) => entry.isDirectory()).map((entry) => entry.name);
  } catch {
    agentIds = [];
  }
  const checks: DoctorCheck[] = [];
  for (const agentId of agentIds.sort()) {
    const found = await checkAgentStore(agentId, join(agentsRoot, agentId, LOSSLESS_STORE_FILE), options);
    if (found !== undefined) checks.push(found);
  }
  if (checks.length === 0) checks.push(check("lossless-store", "ok", "lossless store: none yet"));
  return checks;
}

async function checkAgentStore(
  agentId: string,
  path: string,
  options: LosslessStoreCheckOptions,
): Promise<DoctorCheck | undefined> {
  const id = `lossless-store.${agentId}`;
  const bytes = await bytesOnDisk(path);
  if (bytes === undefined) return undefined;
  const size = `lossless store of agent ${agentId}: ${path}, ${formatBytesExact(bytes)} on disk (with WAL)`;
  if (options.readTotals === undefined) return check(id, "ok", size);
  try {
    const totals = await options.readTotals(path);
    return check(id, "ok", `${size}, ${totals.messages} messages in ${totals.sessions} session(s)`);
  } catch (error) {
    return check(
      id,
      "warning",
      `${size}, but it cannot be read: ${describeError(error)}`,
      "the engine passes the host's messages through while its store is unusable; see the error, or move the file away to start a new store",
    );
  }
}

/** The database file and its WAL and shared-memory files; undefined when the database is missing. */
async function bytesOnDisk(path: string): Promise<number | undefined> {
  let total = 0;
  for (const suffix of ["", "-wal", "-shm"]) {
    try {
      total += (await stat(`${path}${suffix}`)).size;
    } catch {
      if (suffix === "") return undefined;
    }
  }
  return total;
}

function formatBytesExact(bytes: number): string {
  return `${formatBytes(bytes)} (${bytes} bytes)`;
}
