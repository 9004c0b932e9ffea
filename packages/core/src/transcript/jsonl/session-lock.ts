/**
 * A cross-process single-writer lock: `<file>.lock`, created exclusively, holding
 * `{pid, hostname, createdAt, token, processStartedAt}`.
 *
 * Contract:
 * - `acquireSessionLock` resolves only when this caller holds the lock. While a live process holds
 *   it (including this process: a second writer in the same process is refused too) it throws
 *   `SessionLockedError` naming the holder's pid, after retrying for `waitMs` if given.
 * - A lock is taken over only when it is provably stale: its pid is not alive on this host, its pid
 *   is ours but from an earlier start of a process with the same pid (containers reuse pids), or it
 *   is unreadable garbage older than `garbageStaleAfterMs` (a writer died while creating it). A lock
 *   from another host is never taken over: there is no way to check that process.
 * - Takeovers are serialized through a short-lived `<file>.lock.takeover` file, so two processes
 *   replacing the same stale lock cannot both win. The new lock is written to a temp file and
 *   renamed over the stale one, then read back to confirm.
 * - `release` removes the lock file only while it still holds our token.
 */
import { randomBytes } from "node:crypto";
import { open, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { hostname as osHostname } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import { SessionLockedError } from "../../errors.js";

export interface SessionLockOptions {
  /** What the lock guards, named in `SessionLockedError` (a session id). */
  label: string;
  processId?: number;
  hostName?: string;
  /** The clock for `createdAt`. Ages and waits use the real clocks: they are compared with file times. */
  now?: () => number;
  randomToken?: () => string;
  isProcessAlive?: (pid: number) => boolean;
  /** An unreadable lock file older than this is taken over. Default 5 s. */
  garbageStaleAfterMs?: number;
  /** How long to keep retrying while a live process holds the lock. Default 0: refuse at once. */
  waitMs?: number;
}

export interface LockRecord {
  pid: number;
  hostname: string;
  createdAt: string;
  token: string;
  /** When the holder process started (ms since epoch), to tell a reused pid from the same process. */
  processStartedAt?: number;
}

const DEFAULT_GARBAGE_STALE_MS = 5000;
/** Retries for transient states (a lock released or a takeover in progress) that resolve in ms. */
const MAX_TRANSIENT_RETRIES = 50;
const PROCESS_START_TOLERANCE_MS = 2000;
const processStartedAt = Math.round(Date.now() - process.uptime() * 1000);

export function lockPathOf(targetPath: string): string {
  return `${targetPath}.lock`;
}

/** A held lock. */
export class SessionLock {
  readonly lockPath: string;
  readonly token: string;
  private released = false;

  constructor(lockPath: string, token: string) {
    this.lockPath = lockPath;
    this.token = token;
  }

  /** Removes the lock file if it still holds our token; later calls do nothing. Never throws for a missing file. */
  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    const raw = await readTextIfExists(this.lockPath);
    if (raw !== undefined && parseLockRecord(raw)?.token === this.token)
      await rm(this.lockPath, { force: true });
  }
}

interface LockSettings {
  label: string;
  pid: number;
  hostName: string;
  isProcessAlive: (pid: number) => boolean;
  garbageStaleAfterMs: number;
}

type Attempt = { kind: "acquired" } | { kind: "held"; pid: number | undefined } | { kind: "retry" };

/** Takes the writer lock of `targetPath` (the lock file is `<targetPath>.lock`). */
export async function acquireSessionLock(
  targetPath: string,
  options: SessionLockOptions,
): Promise<SessionLock> {
  const settings: LockSettings = {
    label: options.label,
    pid: options.processId ?? process.pid,
    hostName: options.hostName ?? osHostname(),
    isProcessAlive: options.isProcessAlive ?? isProcessAlive,
    garbageStaleAfterMs: options.garbageStaleAfterMs ?? DEFAULT_GARBAGE_STALE_MS,
  };
  const token = (options.randomToken ?? (() => randomBytes(12).toString("hex")))();
  const record: LockRecord = {
    pid: settings.pid,
    hostname: settings.hostName,
    createdAt: new Date((options.now ?? Date.now)()).toISOString(),
    token,
    processStartedAt,
  };
  const content = `${JSON.stringify(record)}\n`;
  const lockPath = lockPathOf(targetPath);
  const deadline = performance.now() + (options.waitMs ?? 0);
  let transientRetries = 0;
  for (;;) {
    const attempt = await attemptAcquire(lockPath, content, settings);
    if (attempt.kind === "acquired") return new SessionLock(lockPath, token);
    if (attempt.kind === "retry" && transientRetries < MAX_TRANSIENT_RETRIES) {
      transientRetries += 1;
      await sleep(transientRetries < 5 ? 0 : 5);
      continue;
    }
    if (performance.now() >= deadline) {
      throw new SessionLockedError(
        settings.label,
        lockPath,
        attempt.kind === "held" ? attempt.pid : undefined,
      );
    }
    await sleep(1 + Math.floor(Math.random() * 8));
  }
}

async function attemptAcquire(lockPath: string, content: string, settings: LockSettings): Promise<Attempt> {
  if (await createExclusive(lockPath, content)) return { kind: "acquired" };
  const raw = await readTextIfExists(lockPath);
  if (raw === undefined) return { kind: "retry" };
  const record = parseLockRecord(raw);
  if (record === undefined) {
    const ageMs = await ageOf(lockPath);
    if (ageMs === undefined) return { kind: "retry" };
    // Young garbage is most likely a lock being written right now.
    if (ageMs <= settings.garbageStaleAfterMs) return { kind: "held", pid: undefined };
  } else if (!isStaleRecord(record, settings)) {
    return { kind: "held", pid: record.pid };
  }
  return takeOver(lockPath, raw, content, settings);
}

function isStaleRecord(record: LockRecord, settings: LockSettings): boolean {
  if (record.hostname !== settings.hostName) return false;
  if (record.pid === settings.pid) {
    return (
      record.processStartedAt !== undefined &&
      Math.abs(record.processStartedAt - processStartedAt) > PROCESS_START_TOLERANCE_MS
    );
  }
  return !settings.isProcessAlive(record.pid);
}

async function takeOver(
  lockPath: string,
  staleRaw: string,
  content: string,
  settings: LockSettings,
): Promise<Attempt> {
  const mutexPath = `${lockPath}.takeover`;
  if (!(await createExclusive(mutexPath, content))) {
    // A taker that died mid-takeover leaves the mutex behind; it is only ever held for milliseconds.
    const ageMs = await ageOf(mutexPath);
    if (ageMs !== undefined && ageMs > settings.garbageStaleAfterMs) await rm(mutexPath, { force: true });
    return { kind: "retry" };
  }
  const tempPath = `${lockPath}.${randomBytes(6).toString("hex")}.tmp`;
  try {
    if ((await readTextIfExists(lockPath)) !== staleRaw) return { kind: "retry" };
    await writeFile(tempPath, content, { flag: "wx" });
    await rename(tempPath, lockPath);
    return (await readTextIfExists(lockPath)) === content ? { kind: "acquired" } : { kind: "retry" };
  } finally {
    await rm(tempPath, { force: true });
    await rm(mutexPath, { force: true });
  }
}

/** Creates `path` with `content` unless it exists; false when it does. */
async function createExclusive(path: string, content: string): Promise<boolean> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, "wx", 0o644);
  } catch (error) {
    if (errorCode(error) === "EEXIST") return false;
    throw error;
  }
  try {
    await handle.writeFile(content);
  } catch (error) {
    await handle.close();
    await rm(path, { force: true });
    throw error;
  }
  await handle.close();
  return true;
}

/** Parses a lock file's text; undefined for anything that is not a lock record. */
export function parseLockRecord(raw: string): LockRecord | undefined {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null) return undefined;
  const record = value as Partial<LockRecord>;
  if (!Number.isInteger(record.pid) || (record.pid ?? 0) <= 0 || typeof record.token !== "string")
    return undefined;
  if (typeof record.hostname !== "string") return undefined;
  return record as LockRecord;
}

/** Whether a process with this pid exists on this host (EPERM: it exists, owned by someone else). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return errorCode(error) !== "ESRCH";
  }
}

async function readTextIfExists(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    if (errorCode(error) === "ENOENT") return undefined;
    throw error;
  }
}

async function ageOf(path: string): Promise<number | undefined> {
  try {
    return Date.now() - (await stat(path)).mtimeMs;
  } catch (error) {
    if (errorCode(error) === "ENOENT") return undefined;
    throw error;
  }
}

export function errorCode(error: unknown): string | undefined {
  return typeof error === "object" && error !== null && "code" in error && typeof error.code === "string"
    ? error.code
    : undefined;
}
