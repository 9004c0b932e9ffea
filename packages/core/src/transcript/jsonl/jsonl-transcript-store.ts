/**
 * The JSONL transcript store: `<home>/agents/<agentId>/sessions/<sessionId>.jsonl`, one JSON object
 * per line, compatible with pi and OpenClaw session files. The writer lock is `<file>.lock`.
 *
 * Beyond the seam's contract (`../transcript-store.ts`):
 * - Files in pi's older format (entries without `id`/`parentId`) open read-only, with in-memory ids
 *   `legacy-<line>` chained in file order; `open` refuses them (`TranscriptWriteError`,
 *   `legacy-format`) because appending would mix formats. An importer converts them.
 * - New transcripts are created with mode 0600: they hold whole conversations.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { constants, type FileHandle, mkdir, open, readdir, rename, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import {
  InvalidAgentIdError,
  InvalidSessionIdError,
  TranscriptReadError,
  TranscriptWriteError,
  UnknownSessionError,
} from "../../errors.js";
import { agentSessionsDir } from "../../paths.js";
import { type SessionHeader, TRANSCRIPT_VERSION } from "../entries.js";
import type {
  CreateTranscriptOptions,
  FsyncPolicy,
  Transcript,
  TranscriptInfo,
  TranscriptStore,
} from "../transcript-store.js";
import { fsyncDirectory, nodeFileOperations, type TranscriptFileOperations } from "./file-operations.js";
import { JsonlTranscript } from "./jsonl-transcript.js";
import { type LoadedTranscript, loadTranscriptFile } from "./parse-lines.js";
import { acquireSessionLock, errorCode, type SessionLock } from "./session-lock.js";

export type { TranscriptFileOperations } from "./file-operations.js";

export interface JsonlTranscriptStoreOptions {
  /** Clew's home folder (see `resolveClewHome`). */
  home: string;
  /** Default `turn`: the host calls `flush()` at the end of each turn. */
  fsync?: FsyncPolicy;
  now?: () => number;
  /** New entry ids; default 8 random hex characters. */
  randomId?: () => string;
  /** New session ids; default a random UUID. */
  randomSessionId?: () => string;
  /** The pid written into lock files; default `process.pid`. */
  processId?: number;
  /** File operations to count or fail in tests; unset members use `node:fs`. */
  operations?: Partial<TranscriptFileOperations>;
}

const SESSION_ID_PATTERN = /^[a-z0-9][a-z0-9._-]{0,127}$/i;
const AGENT_ID_PATTERN = /^[a-z0-9][a-z0-9._-]{0,63}$/i;
const TRANSCRIPT_SUFFIX = ".jsonl";
const CREATE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_APPEND;
const HEADER_CORE_FIELDS = new Set(["type", "version", "id", "timestamp", "cwd", "parentSession"]);

export class JsonlTranscriptStore implements TranscriptStore {
  readonly kind = "jsonl";
  private readonly home: string;
  private readonly fsync: FsyncPolicy;
  private readonly now: () => number;
  private readonly randomId: () => string;
  private readonly randomSessionId: () => string;
  private readonly processId: number | undefined;
  private readonly operations: TranscriptFileOperations;

  constructor(options: JsonlTranscriptStoreOptions) {
    this.home = options.home;
    this.fsync = options.fsync ?? "turn";
    this.now = options.now ?? Date.now;
    this.randomId = options.randomId ?? (() => randomBytes(4).toString("hex"));
    this.randomSessionId = options.randomSessionId ?? randomUUID;
    this.processId = options.processId;
    this.operations = { ...nodeFileOperations, ...options.operations };
  }

  /** The file of a session; throws `InvalidAgentIdError`/`InvalidSessionIdError` for unsafe ids. */
  transcriptPath(agentId: string, sessionId: string): string {
    assertAgentId(agentId);
    assertSessionId(sessionId);
    return join(agentSessionsDir(this.home, agentId), `${sessionId}${TRANSCRIPT_SUFFIX}`);
  }

  /**
   * Writes the header (version 3) and returns the transcript open for writing, holding its lock.
   * Throws `TranscriptWriteError` (`exists`) when the session already exists.
   */
  async create(options: CreateTranscriptOptions): Promise<Transcript> {
    const sessionId = options.sessionId ?? this.randomSessionId();
    const location = this.transcriptPath(options.agentId, sessionId);
    await mkdir(agentSessionsDir(this.home, options.agentId), { recursive: true });
    const lock = await this.lock(location, sessionId);
    try {
      const header = this.buildHeader(sessionId, options);
      const headerLine = Buffer.from(`${JSON.stringify(header)}\n`, "utf8");
      const handle = await this.createFile(location);
      try {
        await handle.write(headerLine);
        if (this.fsync !== "never") await this.operations.fsync(handle);
      } catch (error) {
        await handle.close();
        // The file was created exclusively a moment ago: nothing but our partial header is lost.
        await rm(location, { force: true });
        throw new TranscriptWriteError("cannot write the session header", location, "io", error);
      }
      if (this.fsync !== "never") await fsyncDirectory(agentSessionsDir(this.home, options.agentId));
      const loaded: LoadedTranscript = {
        header,
        entries: [],
        ranges: new Map(),
        issues: [],
        bytes: headerLine.length,
        endsWithNewline: true,
        legacy: false,
      };
      return this.transcript(options.agentId, sessionId, location, loaded, { handle, lock });
    } catch (error) {
      await lock.release();
      throw error;
    }
  }

  /** Throws `UnknownSessionError`, `SessionLockedError`, `TranscriptReadError`, or `TranscriptWriteError` (`legacy-format`). */
  async open(agentId: string, sessionId: string): Promise<Transcript> {
    const location = this.transcriptPath(agentId, sessionId);
    await this.assertTranscriptFile(location, agentId, sessionId);
    const lock = await this.lock(location, sessionId);
    try {
      const loaded = await this.load(location);
      if (loaded.legacy) {
        throw new TranscriptWriteError(
          "cannot open for writing: written in an older pi format without entry ids; open it read-only or import it",
          location,
          "legacy-format",
        );
      }
      const handle = await this.operations.openForAppending(location);
      return this.transcript(agentId, sessionId, location, loaded, { handle, lock });
    } catch (error) {
      await lock.release();
      throw error;
    }
  }

  /** Takes no lock. Throws `UnknownSessionError` or `TranscriptReadError`. */
  async openReadOnly(agentId: string, sessionId: string): Promise<Transcript> {
    const location = this.transcriptPath(agentId, sessionId);
    await this.assertTranscriptFile(location, agentId, sessionId);
    const loaded = await this.load(location);
    return this.transcript(agentId, sessionId, location, loaded, undefined);
  }

  async exists(agentId: string, sessionId: string): Promise<boolean> {
    const location = this.transcriptPath(agentId, sessionId);
    try {
      return (await stat(location)).isFile();
    } catch (error) {
      if (errorCode(error) === "ENOENT") return false;
      throw error;
    }
  }

  /** Live transcripts of an agent, sorted by session id; archived files are not listed. */
  async list(agentId: string): Promise<TranscriptInfo[]> {
    assertAgentId(agentId);
    const directory = agentSessionsDir(this.home, agentId);
    let names: string[];
    try {
      names = await readdir(directory);
    } catch (error) {
      if (errorCode(error) === "ENOENT") return [];
      throw error;
    }
    const infos: TranscriptInfo[] = [];
    for (const name of names.sort()) {
      if (!name.endsWith(TRANSCRIPT_SUFFIX)) continue;
      const sessionId = name.slice(0, -TRANSCRIPT_SUFFIX.length);
      if (!SESSION_ID_PATTERN.test(sessionId)) continue;
      const location = join(directory, name);
      const stats = await stat(location).catch(() => undefined);
      if (stats === undefined || !stats.isFile()) continue;
      infos.push({ agentId, sessionId, location, bytes: stats.size, modifiedAt: stats.mtimeMs });
    }
    return infos;
  }

  /**
   * Renames the transcript to `<file>.<reason>.<time>` and returns the new path. Takes the writer
   * lock for the rename, so it throws `SessionLockedError` while the session is open for writing.
   */
  async archive(agentId: string, sessionId: string, reason: "reset" | "deleted"): Promise<string> {
    const location = this.transcriptPath(agentId, sessionId);
    await this.assertTranscriptFile(location, agentId, sessionId);
    const lock = await this.lock(location, sessionId);
    try {
      const stamp = new Date(this.now()).toISOString().replaceAll(":", "-");
      let target = `${location}.${reason}.${stamp}`;
      for (let suffix = 2; await pathExists(target); suffix += 1)
        target = `${location}.${reason}.${stamp}-${suffix}`;
      await rename(location, target);
      if (this.fsync !== "never") await fsyncDirectory(agentSessionsDir(this.home, agentId));
      return target;
    } finally {
      await lock.release();
    }
  }

  private buildHeader(sessionId: string, options: CreateTranscriptOptions): SessionHeader {
    const header: SessionHeader = {
      type: "session",
      version: TRANSCRIPT_VERSION,
      id: sessionId,
      timestamp: options.timestamp ?? new Date(this.now()).toISOString(),
      cwd: options.cwd ?? process.cwd(),
    };
    if (options.parentSession !== undefined) header.parentSession = options.parentSession;
    for (const [key, value] of Object.entries(options.headerFields ?? {})) {
      if (!HEADER_CORE_FIELDS.has(key)) header[key] = value;
    }
    return header;
  }

  private async createFile(location: string): Promise<FileHandle> {
    try {
      return await open(location, CREATE_FLAGS, 0o600);
    } catch (error) {
      if (errorCode(error) === "EEXIST") {
        throw new TranscriptWriteError(
          "cannot create: the session already exists",
          location,
          "exists",
          error,
        );
      }
      throw error;
    }
  }

  private lock(location: string, sessionId: string): Promise<SessionLock> {
    return acquireSessionLock(location, { label: sessionId, processId: this.processId, now: this.now });
  }

  private async assertTranscriptFile(location: string, agentId: string, sessionId: string): Promise<void> {
    let stats: Awaited<ReturnType<typeof stat>>;
    try {
      stats = await stat(location);
    } catch (error) {
      if (errorCode(error) === "ENOENT") throw new UnknownSessionError(agentId, sessionId, location);
      throw new TranscriptReadError(`cannot read: ${describeCode(error)}`, location, { cause: error });
    }
    if (!stats.isFile()) {
      const what = stats.isDirectory() ? "a directory" : "not a regular file";
      throw new TranscriptReadError(`cannot read: the transcript path is ${what}`, location);
    }
  }

  private async load(location: string): Promise<LoadedTranscript> {
    let handle: FileHandle;
    try {
      handle = await this.operations.openForReading(location);
    } catch (error) {
      throw new TranscriptReadError(`cannot read: ${describeCode(error)}`, location, { cause: error });
    }
    try {
      return await loadTranscriptFile(handle, location);
    } catch (error) {
      if (error instanceof TranscriptReadError) throw error;
      throw new TranscriptReadError(`cannot read: ${describeCode(error)}`, location, { cause: error });
    } finally {
      await handle.close();
    }
  }

  private transcript(
    agentId: string,
    sessionId: string,
    location: string,
    loaded: LoadedTranscript,
    writer: { handle: FileHandle; lock: SessionLock } | undefined,
  ): Transcript {
    return new JsonlTranscript({
      agentId,
      sessionId,
      location,
      loaded,
      writer,
      fsync: this.fsync,
      now: this.now,
      randomId: this.randomId,
      operations: this.operations,
    });
  }
}

function assertSessionId(sessionId: string): void {
  if (typeof sessionId !== "string" || !SESSION_ID_PATTERN.test(sessionId)) {
    throw new InvalidSessionIdError(String(sessionId));
  }
}

function assertAgentId(agentId: string): void {
  if (typeof agentId !== "string" || !AGENT_ID_PATTERN.test(agentId))
    throw new InvalidAgentIdError(String(agentId));
}

async function pathExists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

function describeCode(error: unknown): string {
  const code = errorCode(error);
  const message = error instanceof Error ? error.message : String(error);
  return code === undefined || message.includes(code) ? message : `${code}: ${message}`;
}
