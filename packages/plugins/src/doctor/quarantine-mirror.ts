/**
 * Quarantine is per process (a `QuarantineLedger` lives with its registry), so `clew doctor`, a
 * separate process, cannot see what a running gateway quarantined. The gateway mirrors its ledger
 * into `<home>/state/quarantine.json`; doctor reads it and trusts it only while the writing
 * process is alive on this host.
 */
import { mkdir, readFile, rm } from "node:fs/promises";
import { hostname as osHostname } from "node:os";
import { dirname, join } from "node:path";
import { type ContextEngineRegistry, describeError, isProcessAlive, type QuarantineRecord } from "@clew/core";
import { writeFileAtomic } from "../atomic-file.js";

export interface QuarantineMirrorFile {
  pid: number;
  hostname: string;
  /** ISO 8601. */
  updatedAt: string;
  records: QuarantineRecord[];
}

export interface QuarantineMirrorOptions {
  home: string;
  registry: ContextEngineRegistry;
  processId?: number;
  hostName?: string;
  now?: () => number;
}

/** What a running gateway's mirror says. */
export type GatewayQuarantineState =
  | { kind: "none"; path: string }
  | { kind: "stale"; path: string; pid: number; hostname: string }
  | { kind: "unreadable"; path: string; message: string }
  | { kind: "running"; path: string; pid: number; updatedAt: string; records: QuarantineRecord[] };

/** `<home>/state/quarantine.json`. */
export function quarantineMirrorPath(home: string): string {
  return join(home, "state", "quarantine.json");
}

/**
 * A gateway's quarantine mirror. `sync()` writes the registry's quarantine records when they
 * changed since the last write (call it after every run, command and reload; it is cheap when
 * nothing changed); `close()` removes the file if this process wrote it. Writes are atomic.
 * Both reject only on file-system errors, which callers should log and otherwise ignore.
 */
export function createQuarantineMirror(options: QuarantineMirrorOptions): {
  sync(): Promise<void>;
  close(): Promise<void>;
} {
  const path = quarantineMirrorPath(options.home);
  const pid = options.processId ?? process.pid;
  const hostName = options.hostName ?? osHostname();
  const now = options.now ?? Date.now;
  let written: string | undefined;
  return {
    async sync() {
      const records = options.registry.quarantine.list();
      const fingerprint = JSON.stringify(records);
      if (fingerprint === written) return;
      const file: QuarantineMirrorFile = {
        pid,
        hostname: hostName,
        updatedAt: new Date(now()).toISOString(),
        records,
      };
      await mkdir(dirname(path), { recursive: true });
      await writeFileAtomic(path, `${JSON.stringify(file, null, 2)}\n`);
      written = fingerprint;
    },
    async close() {
      const current = await readMirrorFile(path).catch(() => undefined);
      if (current?.pid === pid && current.hostname === hostName) await rm(path, { force: true });
      written = undefined;
    },
  };
}

/**
 * Reads the mirror for doctor. Never throws: a missing file is `none`, a file whose writer is not
 * alive on this host (or lives on another host) is `stale`, garbage is `unreadable`.
 */
export async function readGatewayQuarantineState(
  home: string,
  options: { hostName?: string; isProcessAlive?: (pid: number) => boolean } = {},
): Promise<GatewayQuarantineState> {
  const path = quarantineMirrorPath(home);
  let file: QuarantineMirrorFile | undefined;
  try {
    file = await readMirrorFile(path);
  } catch (error) {
    return { kind: "unreadable", path, message: describeError(error) };
  }
  if (file === undefined) return { kind: "none", path };
  const alive = options.isProcessAlive ?? isProcessAlive;
  if (file.hostname !== (options.hostName ?? osHostname()) || !alive(file.pid)) {
    return { kind: "stale", path, pid: file.pid, hostname: file.hostname };
  }
  return { kind: "running", path, pid: file.pid, updatedAt: file.updatedAt, records: file.records };
}

async function readMirrorFile(path: string): Promise<QuarantineMirrorFile | undefined> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  const value = JSON.parse(text) as Partial<QuarantineMirrorFile> | null;
  if (
    typeof value !== "object" ||
    value === null ||
    !Number.isInteger(value.pid) ||
    typeof value.hostname !== "string" ||
    !Array.isArray(value.records)
  ) {
    throw new Error(`${path} is not a quarantine mirror (expected pid, hostname and records)`);
  }
  return value as QuarantineMirrorFile;
}
