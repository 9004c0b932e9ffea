/**
 * The per-agent sessions index, `<home>/agents/<agentId>/sessions/sessions.json`: a JSON object
 * mapping each session key (`agent:main:main`, ...) to the session it currently points at, with
 * usage counters and cached reports (OpenClaw's session store, with Clew's field names).
 *
 * Contract:
 * - Every write replaces the file atomically (temp file in the same folder, fsync, rename), so a
 *   reader sees the old index or the new one, never a mix.
 * - `upsert` and `remove` are read-modify-write under `sessions.json.lock` and re-read the file
 *   inside the lock: concurrent writers in several processes never lose each other's updates.
 * - A corrupt index is never overwritten: every read and write throws `SessionIndexError` naming
 *   the file until the user repairs or moves it. An empty file counts as an empty index.
 * - Unknown fields on entries are kept as they are.
 */
import { randomBytes } from "node:crypto";
import { type FileHandle, mkdir, open, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import { SessionIndexError } from "../errors.js";
import { agentSessionsDir } from "../paths.js";
import { fsyncDirectory } from "./jsonl/file-operations.js";
import { isPlainObject } from "./jsonl/parse-lines.js";
import { acquireSessionLock, errorCode } from "./jsonl/session-lock.js";

export interface SessionIndexEntry {
  [extra: string]: unknown;
  sessionKey: string;
  sessionId: string;
  /** Absolute path of the transcript. */
  sessionFile: string;
  /** Milliseconds since the epoch. */
  createdAt: number;
  /** Milliseconds since the epoch; set on every upsert unless the update sets it. */
  updatedAt: number;
  model?: { provider?: string; id?: string };
  tokens?: {
    input: number;
    output: number;
    cacheRead: number;
    cacheWrite: number;
    total: number;
    context?: number;
  };
  /** Estimated cost in USD. */
  cost?: number;
  compactionCount: number;
  settings?: Record<string, unknown>;
  /** The last context report (`/context`), cached for display. */
  contextReport?: unknown;
}

/** Fields to merge into an entry; `sessionId` is required when the key is new. */
export type SessionIndexPatch = Partial<Omit<SessionIndexEntry, "sessionKey">>;

/** A patch merged over the current entry, or a function from the current entry to the next one. */
export type SessionIndexUpdate =
  | SessionIndexPatch
  | ((current: SessionIndexEntry | undefined) => SessionIndexPatch);

export interface SessionIndexOptions {
  home: string;
  agentId: string;
  now?: () => number;
  /** The pid written into the lock file; default `process.pid`. */
  processId?: number;
  /** How long a write waits for another writer's lock. Default 5 s. */
  lockWaitMs?: number;
}

const SESSION_ID_PATTERN = /^[a-z0-9][a-z0-9._-]{0,127}$/i;
const DEFAULT_LOCK_WAIT_MS = 5000;

type IndexContent = Record<string, SessionIndexEntry>;

interface CachedContent {
  identity: string;
  content: IndexContent;
}

export class SessionIndex {
  readonly location: string;
  private readonly directory: string;
  private readonly options: SessionIndexOptions;
  private readonly now: () => number;
  private cache: CachedContent | undefined;

  constructor(options: SessionIndexOptions) {
    this.options = options;
    this.directory = agentSessionsDir(options.home, options.agentId);
    this.location = join(this.directory, "sessions.json");
    this.now = options.now ?? Date.now;
  }

  /** A copy of the entry. Throws `SessionIndexError` when the index is corrupt. */
  async get(sessionKey: string): Promise<SessionIndexEntry | undefined> {
    const content = await this.read();
    return Object.hasOwn(content, sessionKey) ? structuredClone(content[sessionKey]) : undefined;
  }

  /** Copies of every entry, in file order. Throws `SessionIndexError` when the index is corrupt. */
  async list(): Promise<SessionIndexEntry[]> {
    return structuredClone(Object.values(await this.read()));
  }

  /**
   * Creates or updates the entry of `sessionKey` and returns it. A patch is merged over the current
   * entry; a function's result replaces it. `sessionKey` is always the key; `createdAt`,
   * `sessionFile` and `compactionCount` get defaults. Throws `SessionIndexError` when the index is
   * corrupt (it is left untouched) or the entry has no valid `sessionId`, and `SessionLockedError`
   * when another writer holds the lock longer than `lockWaitMs`.
   */
  async upsert(sessionKey: string, update: SessionIndexUpdate): Promise<SessionIndexEntry> {
    return this.modify((content) => {
      const current = Object.hasOwn(content, sessionKey) ? content[sessionKey] : undefined;
      const fields = typeof update === "function" ? update(current) : { ...current, ...update };
      const explicitUpdatedAt =
        typeof update === "function" ? fields.updatedAt !== current?.updatedAt : "updatedAt" in update;
      const next = this.completeEntry(sessionKey, fields, current, explicitUpdatedAt);
      return { content: { ...content, [sessionKey]: next }, result: next };
    });
  }

  /** Removes the entry; false when there was none (nothing is written then). */
  async remove(sessionKey: string): Promise<boolean> {
    return this.modify((content) => {
      if (!Object.hasOwn(content, sessionKey)) return { content: undefined, result: false };
      const { [sessionKey]: _removed, ...rest } = content;
      return { content: rest, result: true };
    });
  }

  private completeEntry(
    sessionKey: string,
    fields: SessionIndexPatch,
    current: SessionIndexEntry | undefined,
    explicitUpdatedAt: boolean,
  ): SessionIndexEntry {
    const sessionId = fields.sessionId;
    if (typeof sessionId !== "string" || !SESSION_ID_PATTERN.test(sessionId)) {
      throw new SessionIndexError(
        `entry "${sessionKey}": "sessionId" must be a valid session id, got ${JSON.stringify(sessionId)}`,
        this.location,
      );
    }
    const now = this.now();
    const entry: SessionIndexEntry = {
      sessionKey,
      ...fields,
      sessionId,
      sessionFile:
        typeof fields.sessionFile === "string"
          ? fields.sessionFile
          : join(this.directory, `${sessionId}.jsonl`),
      createdAt: typeof fields.createdAt === "number" ? fields.createdAt : (current?.createdAt ?? now),
      updatedAt: explicitUpdatedAt && typeof fields.updatedAt === "number" ? fields.updatedAt : now,
      compactionCount: typeof fields.compactionCount === "number" ? fields.compactionCount : 0,
    };
    // The key always wins over a `sessionKey` smuggled into the fields; assigning keeps it first.
    entry.sessionKey = sessionKey;
    return entry;
  }

  /** Runs a read-modify-write under the index lock; `content: undefined` writes nothing. */
  private async modify<T>(
    change: (content: IndexContent) => { content: IndexContent | undefined; result: T },
  ): Promise<T> {
    await mkdir(this.directory, { recursive: true });
    const lock = await acquireSessionLock(this.location, {
      label: `${this.options.agentId}/sessions.json`,
      processId: this.options.processId,
      now: this.now,
      waitMs: this.options.lockWaitMs ?? DEFAULT_LOCK_WAIT_MS,
    });
    try {
      const { content, result } = change(await this.read({ fresh: true }));
      if (content !== undefined) await this.write(content);
      return result;
    } finally {
      await lock.release();
    }
  }

  /** The parsed index, shared with the cache: never mutate it. `fresh` skips the cache. */
  private async read(options: { fresh?: boolean } = {}): Promise<IndexContent> {
    let handle: FileHandle;
    try {
      handle = await open(this.location, "r");
    } catch (error) {
      if (errorCode(error) === "ENOENT") return {};
      throw new SessionIndexError(
        `cannot read the sessions index (${errorCode(error) ?? "error"})`,
        this.location,
        error,
      );
    }
    try {
      // Every write renames a new file into place, so inode, size and mtime identify a version.
      const stats = await handle.stat();
      const identity = `${stats.ino}:${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}`;
      if (!options.fresh && this.cache?.identity === identity) return this.cache.content;
      const content = this.parse(await handle.readFile("utf8"));
      this.cache = { identity, content };
      return content;
    } finally {
      await handle.close();
    }
  }

  private parse(text: string): IndexContent {
    if (text.trim() === "") return {};
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new SessionIndexError(
        `the sessions index is not valid JSON (${reason}); Clew will not overwrite it: repair or move the file`,
        this.location,
        error,
      );
    }
    if (!isPlainObject(value)) {
      throw new SessionIndexError(
        "the sessions index is not a JSON object; Clew will not overwrite it",
        this.location,
      );
    }
    for (const [key, entry] of Object.entries(value)) {
      if (!isPlainObject(entry)) {
        throw new SessionIndexError(
          `entry "${key}" is not an object; Clew will not overwrite the index`,
          this.location,
        );
      }
    }
    return value as IndexContent;
  }

  private async write(content: IndexContent): Promise<void> {
    const tempPath = `${this.location}.${randomBytes(6).toString("hex")}.tmp`;
    try {
      const handle = await open(tempPath, "wx", 0o600);
      try {
        await handle.writeFile(`${JSON.stringify(content, null, 2)}\n`, "utf8");
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(tempPath, this.location);
    } catch (error) {
      await rm(tempPath, { force: true });
      throw error;
    }
    this.cache = undefined;
    await fsyncDirectory(this.directory);
  }
}
