import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { describeError, formatBytes } from "@clew/core";
import { check, type DoctorCheck } from "./doctor-check.js";

/** Counts read from an engine's store; the caller opens it read-only (this package cannot). */
export interface EngineStoreTotals {
  sessions: number;
  messages: number;
}

/**
 * An engine that keeps a database file in each agent folder, as the caller that knows the engine
 * describes it (the CLI: the lossless engine's id and `lossless.db`).
 */
export interface EngineStoreProbe {
  engineId: string;
  /** The file in `<home>/agents/<agent>/`. */
  fileName: string;
  /** Reads sessions and messages; without it only the size is shown. */
  readTotals?: (path: string) => Promise<EngineStoreTotals>;
}

export interface EngineStoreCheckOptions {
  home: string;
  /** The engine the config selects; nothing is checked unless it is the probe's engine. */
  selectedEngineId: string;
  store: EngineStoreProbe;
}

/**
 * One line per agent with the engine's store (`<home>/agents/<id>/<fileName>`): its path, bytes
 * on disk including the WAL and shared-memory files, and its sessions and messages. Only when
 * the selected engine is the probe's. A store that cannot be read is a warning (the engine would
 * fail open to the host's messages). Never throws.
 */
export async function checkEngineStores(options: EngineStoreCheckOptions): Promise<DoctorCheck[]> {
  const { engineId, fileName } = options.store;
  if (options.selectedEngineId !== engineId) return [];
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
    const found = await checkAgentStore(agentId, join(agentsRoot, agentId, fileName), options.store);
    if (found !== undefined) checks.push(found);
  }
  if (checks.length === 0) checks.push(check(`${engineId}-store`, "ok", `${engineId} store: none yet`));
  return checks;
}

async function checkAgentStore(
  agentId: string,
  path: string,
  store: EngineStoreProbe,
): Promise<DoctorCheck | undefined> {
  const id = `${store.engineId}-store.${agentId}`;
  const bytes = await bytesOnDisk(path);
  if (bytes === undefined) return undefined;
  const size = `${store.engineId} store of agent ${agentId}: ${path}, ${formatBytesExact(bytes)} on disk (with WAL)`;
  if (store.readTotals === undefined) return check(id, "ok", size);
  try {
    const totals = await store.readTotals(path);
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
