import { readdir, readFile } from "node:fs/promises";
import { hostname as osHostname } from "node:os";
import { join } from "node:path";
import {
  agentSessionsDir,
  describeError,
  isProcessAlive,
  parseLockRecord,
  SessionIndex,
  SessionIndexError,
} from "@clew/core";
import { check, type DoctorCheck } from "./doctor-check.js";

export interface SessionStoreCheckOptions {
  home: string;
  hostName?: string;
  isProcessAlive?: (pid: number) => boolean;
}

/**
 * Each agent's session store (`<home>/agents/<id>/sessions`): the folder is readable, the
 * `sessions.json` index parses, and every `*.lock` file names a live holder. A lock whose process
 * is gone is a warning (the next writer takes it over, but it may mean a crash); a lock from
 * another host cannot be checked from here and is reported as such. Never throws.
 */
export async function checkSessionStores(options: SessionStoreCheckOptions): Promise<DoctorCheck[]> {
  const agentsRoot = join(options.home, "agents");
  let agentIds: string[];
  try {
    const entries = await readdir(agentsRoot, { withFileTypes: true });
    agentIds = entries
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
      .sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") {
      return [check("sessions", "ok", `sessions: none yet (${agentsRoot} does not exist)`)];
    }
    return [
      check(
        "sessions",
        "error",
        `sessions: cannot read ${agentsRoot}: ${describeError(error)}`,
        `check the permissions of ${agentsRoot}`,
      ),
    ];
  }
  const checks: DoctorCheck[] = [];
  for (const agentId of agentIds) checks.push(...(await checkAgentStore(agentId, options)));
  if (checks.length === 0) checks.push(check("sessions", "ok", "sessions: none yet"));
  return checks;
}

async function checkAgentStore(agentId: string, options: SessionStoreCheckOptions): Promise<DoctorCheck[]> {
  const id = `sessions.${agentId}`;
  const dir = agentSessionsDir(options.home, agentId);
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    return [
      check(
        id,
        "error",
        `sessions of agent ${agentId}: cannot read ${dir}: ${describeError(error)}`,
        `check the permissions of ${dir}`,
      ),
    ];
  }
  const checks = [await checkIndex(agentId, options.home)];
  for (const name of names.filter((file) => file.endsWith(".lock")).sort()) {
    checks.push(await checkLock(agentId, join(dir, name), options));
  }
  return checks;
}

async function checkIndex(agentId: string, home: string): Promise<DoctorCheck> {
  const id = `sessions.${agentId}`;
  const index = new SessionIndex({ home, agentId });
  try {
    const entries = await index.list();
    const transcripts = entries.length === 1 ? "1 session" : `${entries.length} sessions`;
    return check(id, "ok", `sessions of agent ${agentId}: ${index.location} parses (${transcripts})`);
  } catch (error) {
    const message =
      error instanceof SessionIndexError ? error.message : `${index.location}: ${describeError(error)}`;
    return check(
      id,
      "error",
      `sessions of agent ${agentId}: ${message}`,
      `repair ${index.location}, or move it aside (the transcripts stay; clew sessions import can re-add them)`,
    );
  }
}

async function checkLock(
  agentId: string,
  lockPath: string,
  options: SessionStoreCheckOptions,
): Promise<DoctorCheck> {
  const id = `sessions.${agentId}.lock`;
  let raw: string;
  try {
    raw = await readFile(lockPath, "utf8");
  } catch (error) {
    // Released between the listing and the read: nothing to report.
    if ((error as NodeJS.ErrnoException).code === "ENOENT")
      return check(id, "ok", `lock ${lockPath}: released`);
    return check(
      id,
      "warning",
      `lock ${lockPath}: cannot read: ${describeError(error)}`,
      `remove ${lockPath}`,
    );
  }
  const record = parseLockRecord(raw);
  if (record === undefined) {
    return check(
      id,
      "warning",
      `lock ${lockPath}: not a lock record (a writer may have crashed while taking it)`,
      `remove ${lockPath}`,
    );
  }
  if (record.hostname !== (options.hostName ?? osHostname())) {
    return check(
      id,
      "ok",
      `lock ${lockPath}: held by pid ${record.pid} on host ${record.hostname} (cannot check it from here)`,
    );
  }
  if ((options.isProcessAlive ?? isProcessAlive)(record.pid)) {
    return check(id, "ok", `lock ${lockPath}: held by running process ${record.pid}`);
  }
  return check(
    id,
    "warning",
    `lock ${lockPath}: stale, its holder pid ${record.pid} (since ${record.createdAt}) is not running`,
    `remove ${lockPath}`,
  );
}
