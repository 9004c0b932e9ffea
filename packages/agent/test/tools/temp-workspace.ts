import { mkdtemp, readFile, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach } from "vitest";

/** A fresh real directory per test, removed afterwards. `dir` is its canonical path. */
export function useTempWorkspace(prefix: string): { readonly dir: string } {
  const state = { dir: "" };
  beforeEach(async () => {
    state.dir = await realpath(await mkdtemp(path.join(tmpdir(), `clew-${prefix}-`)));
  });
  afterEach(async () => {
    await rm(state.dir, { recursive: true, force: true });
  });
  return state;
}

/** True while `pid` runs. A zombie counts as gone: in containers nobody may reap orphans. */
export async function isProcessAlive(pid: number): Promise<boolean> {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = await readFile(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

/** Polls until `pid` is gone or `timeoutMs` passes; answers whether it is gone. */
export async function waitForProcessExit(pid: number, timeoutMs = 1000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!(await isProcessAlive(pid))) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return !(await isProcessAlive(pid));
}

/** Polls until `file` holds a pid (written by a test command) and returns it. */
export async function waitForPidFile(file: string, timeoutMs = 2000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const text = await readFile(file, "utf8").catch(() => "");
    const pid = Number.parseInt(text, 10);
    if (Number.isInteger(pid) && pid > 0) return pid;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`No pid appeared in ${file}`);
}
