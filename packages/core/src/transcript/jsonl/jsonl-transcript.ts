/**
 * An open JSONL transcript. It keeps every entry in memory and follows its own appends, so reads
 * never touch the file after open; appends go to an O_APPEND descriptor, one write per batch.
 *
 * Invariants beyond the seam's contract (`../transcript-store.ts`):
 * - Operations on one transcript run one at a time, in call order.
 * - When the file does not end with a newline (a torn write), the next append starts with one, so
 *   the fragment stays a bad line of its own and never glues onto new JSON.
 * - `rewriteTranscriptEntries` copies the file to a temp file in the same folder, substituting only
 *   the named lines, fsyncs it and renames it over the original. Until the rename the original is
 *   untouched; every other byte (bad lines included) is copied as it was.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { type FileHandle, open, rm } from "node:fs/promises";
import { dirname } from "node:path";
import type { TranscriptRewriteRequest, TranscriptRewriteResult } from "../../context-engine/types.js";
import { describeError, TranscriptWriteError } from "../../errors.js";
import type { AgentMessage } from "../../messages.js";
import type { NewTranscriptEntry, SessionHeader, TranscriptEntry } from "../entries.js";
import { parentChain } from "../parent-chain.js";
import type { FsyncPolicy, Transcript, TranscriptLoadIssue } from "../transcript-store.js";
import { copyRange, fsyncDirectory, type TranscriptFileOperations, writeFully } from "./file-operations.js";
import { isPlainObject, type LineRange, type LoadedTranscript } from "./parse-lines.js";
import type { SessionLock } from "./session-lock.js";

export interface JsonlTranscriptInit {
  agentId: string;
  sessionId: string;
  location: string;
  loaded: LoadedTranscript;
  /** The append handle and the writer lock; absent for a read-only transcript. */
  writer?: { handle: FileHandle; lock: SessionLock };
  fsync: FsyncPolicy;
  now: () => number;
  randomId: () => string;
  operations: TranscriptFileOperations;
}

interface Replacement {
  entry: TranscriptEntry;
  line: Buffer;
  range: LineRange;
}

const NEWLINE = Buffer.from("\n");
const ID_ATTEMPTS = 10;

export class JsonlTranscript implements Transcript {
  readonly agentId: string;
  readonly sessionId: string;
  readonly location: string;
  readonly header: SessionHeader;
  readonly readOnly: boolean;
  readonly loadIssues: readonly TranscriptLoadIssue[];
  private readonly entryList: TranscriptEntry[];
  private readonly byId = new Map<string, TranscriptEntry>();
  private readonly ranges: Map<string, LineRange>;
  private readonly lock: SessionLock | undefined;
  private readonly settings: Pick<JsonlTranscriptInit, "fsync" | "now" | "randomId" | "operations">;
  private handle: FileHandle | undefined;
  private fileSize: number;
  private endsWithNewline: boolean;
  private dirty = false;
  private closed = false;
  private branchCache: TranscriptEntry[] | undefined;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(init: JsonlTranscriptInit) {
    this.agentId = init.agentId;
    this.sessionId = init.sessionId;
    this.location = init.location;
    this.header = init.loaded.header;
    this.readOnly = init.writer === undefined;
    this.loadIssues = init.loaded.issues;
    this.entryList = init.loaded.entries;
    for (const entry of this.entryList) this.byId.set(entry.id, entry);
    this.ranges = init.loaded.ranges;
    this.handle = init.writer?.handle;
    this.lock = init.writer?.lock;
    this.fileSize = init.loaded.bytes;
    this.endsWithNewline = init.loaded.endsWithNewline;
    this.settings = {
      fsync: init.fsync,
      now: init.now,
      randomId: init.randomId,
      operations: init.operations,
    };
  }

  /** The live entry list, not a copy: it grows with appends. Do not mutate it or its entries. */
  entries(): readonly TranscriptEntry[] {
    return this.entryList;
  }

  getEntry(id: string): TranscriptEntry | undefined {
    return this.byId.get(id);
  }

  get leafId(): string | null {
    return this.entryList.at(-1)?.id ?? null;
  }

  /** Cached until the next append or rewrite, and frozen because callers share it. */
  branch(): TranscriptEntry[] {
    if (this.branchCache !== undefined) return this.branchCache;
    // A parent cycle in a hand-edited file stops at the first entry met twice.
    this.branchCache = Object.freeze(parentChain(this.byId, this.leafId).chain) as TranscriptEntry[];
    return this.branchCache;
  }

  /**
   * Throws `TranscriptWriteError`: `read-only`/`closed`, `invalid-entry` (no string `type`, an `id`
   * already used, a `parentId` naming no entry, not serializable; nothing is written), or `io`.
   */
  append(entries: readonly NewTranscriptEntry[]): Promise<TranscriptEntry[]> {
    return this.exclusive(async () => {
      const handle = this.writableHandle("append");
      const prepared = this.prepareEntries(entries);
      if (prepared.length === 0) return [];
      const buffers: Buffer[] = this.endsWithNewline ? [] : [NEWLINE];
      let cursor = this.fileSize + buffers.length;
      const placed = prepared.map(({ entry, line }) => {
        const range: LineRange = { offset: cursor, length: line.length };
        buffers.push(line, NEWLINE);
        cursor += line.length + 1;
        return { entry, range };
      });
      await this.writeOrMarkTorn(handle, buffers);
      for (const { entry, range } of placed) {
        this.entryList.push(entry);
        this.byId.set(entry.id, entry);
        this.ranges.set(entry.id, range);
      }
      this.fileSize = cursor;
      this.endsWithNewline = true;
      this.branchCache = undefined;
      this.dirty = true;
      if (this.settings.fsync === "always") {
        await this.sync(handle).catch((error: unknown) => {
          throw this.writeError("append", "io", `written but not synced: ${describeError(error)}`, error);
        });
      }
      return placed.map(({ entry }) => entry);
    });
  }

  /** Syncs appends made since the last sync; with fsync policy `never` it does nothing. */
  flush(): Promise<void> {
    return this.exclusive(async () => {
      if (this.closed) throw this.writeError("flush", "closed");
      if (this.readOnly || this.handle === undefined) return;
      if (this.settings.fsync !== "never") await this.sync(this.handle);
    });
  }

  /**
   * Replaces the `message` of each named message entry, keeping every other field and every other
   * line byte for byte. Unknown or non-message ids refuse the whole request (`changed: false` with
   * a reason) and change nothing. `allowedRewriteSuffixEntryIds` is not needed: nothing is re-appended.
   * Throws `TranscriptWriteError` when read-only or closed, or (`io`) when the copy or rename fails,
   * in which case the file and the in-memory entries are unchanged.
   */
  rewriteTranscriptEntries(request: TranscriptRewriteRequest): Promise<TranscriptRewriteResult> {
    return this.exclusive(async () => {
      const handle = this.writableHandle("rewrite");
      const plan = this.planRewrite(request);
      if (!Array.isArray(plan)) return plan;
      if (plan.length === 0) return { changed: false, bytesFreed: 0, rewrittenEntries: 0 };
      if ((await handle.stat()).size !== this.fileSize) {
        throw this.writeError("rewrite", "io", "the file changed on disk outside this writer");
      }
      const tempPath = `${this.location}.rewrite-${randomBytes(6).toString("hex")}.tmp`;
      try {
        await this.writeRewrittenCopy(tempPath, plan);
        await this.settings.operations.rename(tempPath, this.location);
      } catch (error) {
        await rm(tempPath, { force: true });
        throw this.writeError(
          "rewrite",
          "io",
          `the transcript is unchanged (${describeError(error)})`,
          error,
        );
      }
      await fsyncDirectory(dirname(this.location));
      const result = this.applyRewrite(plan);
      await this.reopenAfterRewrite(handle);
      return result;
    });
  }

  /** Syncs pending appends, closes the file and releases the writer lock. Later closes do nothing. */
  close(): Promise<void> {
    return this.exclusive(async () => {
      if (this.closed) return;
      this.closed = true;
      const handle = this.handle;
      this.handle = undefined;
      try {
        if (handle !== undefined) await this.syncAndClose(handle);
      } finally {
        await this.lock?.release();
      }
    });
  }

  private async syncAndClose(handle: FileHandle): Promise<void> {
    try {
      if (this.settings.fsync !== "never") await this.sync(handle);
    } finally {
      await handle.close();
    }
  }

  private async sync(handle: FileHandle): Promise<void> {
    if (!this.dirty) return;
    await this.settings.operations.fsync(handle);
    this.dirty = false;
  }

  private exclusive<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(task, task);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private writableHandle(operation: string): FileHandle {
    if (this.closed) throw this.writeError(operation, "closed");
    if (this.readOnly) throw this.writeError(operation, "read-only");
    if (this.handle === undefined) {
      throw this.writeError(
        operation,
        "closed",
        "the file could not be reopened after a rewrite; reopen the session",
      );
    }
    return this.handle;
  }

  private writeError(
    operation: string,
    reason: TranscriptWriteError["reason"],
    detail?: string,
    cause?: unknown,
  ): TranscriptWriteError {
    const why =
      reason === "read-only" ? "the transcript was opened read-only" : `the transcript is ${reason}`;
    return new TranscriptWriteError(`cannot ${operation}: ${detail ?? why}`, this.location, reason, cause);
  }

  private prepareEntries(inputs: readonly NewTranscriptEntry[]): { entry: TranscriptEntry; line: Buffer }[] {
    const batchIds = new Set<string>();
    let previousId = this.leafId;
    return inputs.map((input, index) => {
      const invalid = (reason: string) =>
        this.writeError("append", "invalid-entry", `entry ${index}: ${reason}`);
      if (!isPlainObject(input) || typeof input.type !== "string") throw invalid('needs a string "type"');
      const isTaken = (id: string) => this.byId.has(id) || batchIds.has(id);
      const id = input.id === undefined ? this.newId(isTaken) : input.id;
      if (typeof id !== "string" || id === "") throw invalid('"id" must be a non-empty string');
      if (input.id !== undefined && isTaken(id)) throw invalid(`id "${id}" is already used`);
      const parentId = input.parentId === undefined ? previousId : input.parentId;
      if (parentId !== null && (typeof parentId !== "string" || !isTaken(parentId))) {
        throw invalid(`parentId ${JSON.stringify(parentId)} names no entry`);
      }
      const timestamp =
        typeof input.timestamp === "string" ? input.timestamp : new Date(this.settings.now()).toISOString();
      const entry: Record<string, unknown> = { type: input.type, id, parentId, timestamp };
      for (const [key, value] of Object.entries(input)) if (!(key in entry)) entry[key] = value;
      let json: string;
      try {
        json = JSON.stringify(entry);
      } catch (error) {
        throw invalid(`cannot be stored as JSON (${describeError(error)})`);
      }
      batchIds.add(id);
      previousId = id;
      return { entry: entry as TranscriptEntry, line: Buffer.from(json, "utf8") };
    });
  }

  private newId(isTaken: (id: string) => boolean): string {
    for (let attempt = 0; attempt < ID_ATTEMPTS; attempt += 1) {
      const id = this.settings.randomId();
      if (!isTaken(id)) return id;
    }
    return randomUUID();
  }

  /** Writes all buffers; on failure, remembers that the file may now end in a torn line. */
  private async writeOrMarkTorn(handle: FileHandle, buffers: Buffer[]): Promise<void> {
    const progress = { written: 0 };
    try {
      await writeFully(handle, buffers, progress);
    } catch (error) {
      this.fileSize += progress.written;
      if (progress.written > 0) this.endsWithNewline = false;
      throw this.writeError("append", "io", describeError(error), error);
    }
  }

  private planRewrite(request: TranscriptRewriteRequest): Replacement[] | TranscriptRewriteResult {
    const messages = new Map<string, AgentMessage>();
    for (const replacement of request.replacements) messages.set(replacement.entryId, replacement.message);
    const refuse = (reason: string) => ({ changed: false, bytesFreed: 0, rewrittenEntries: 0, reason });
    const unknown = [...messages.keys()].filter((id) => !this.byId.has(id));
    if (unknown.length > 0) return refuse(`unknown entry ids: ${unknown.join(", ")}`);
    const notMessages = [...messages.keys()].filter((id) => this.byId.get(id)?.type !== "message");
    if (notMessages.length > 0) return refuse(`not message entries: ${notMessages.join(", ")}`);
    const replacements: Replacement[] = [];
    for (const [id, message] of messages) {
      const current = this.byId.get(id);
      const range = this.ranges.get(id);
      if (current === undefined || range === undefined) return refuse(`unknown entry ids: ${id}`);
      if (!isPlainObject(message)) return refuse(`replacement for ${id} is not a message object`);
      const entry = { ...current, message } as TranscriptEntry;
      let json: string;
      try {
        json = JSON.stringify(entry);
      } catch (error) {
        return refuse(`replacement for ${id} cannot be stored as JSON (${describeError(error)})`);
      }
      replacements.push({ entry, line: Buffer.from(json, "utf8"), range });
    }
    return replacements.sort((left, right) => left.range.offset - right.range.offset);
  }

  private async writeRewrittenCopy(tempPath: string, replacements: readonly Replacement[]): Promise<void> {
    const source = await this.settings.operations.openForReading(this.location);
    try {
      const mode = (await source.stat()).mode & 0o777;
      const target = await open(tempPath, "wx", mode);
      try {
        let cursor = 0;
        for (const replacement of replacements) {
          await copyRange(source, target, cursor, replacement.range.offset);
          await writeFully(target, [replacement.line], { written: 0 });
          cursor = replacement.range.offset + replacement.range.length;
        }
        await copyRange(source, target, cursor, this.fileSize);
        // Synced whatever the policy: after the rename this copy is the only one.
        await this.settings.operations.fsync(target);
      } finally {
        await target.close();
      }
    } finally {
      await source.close();
    }
  }

  private applyRewrite(replacements: readonly Replacement[]): TranscriptRewriteResult {
    const byId = new Map(replacements.map((replacement) => [replacement.entry.id, replacement]));
    let shift = 0;
    let bytesBefore = 0;
    let bytesAfter = 0;
    this.entryList.forEach((entry, index) => {
      const range = this.ranges.get(entry.id);
      if (range === undefined) return;
      range.offset += shift;
      const replacement = byId.get(entry.id);
      if (replacement === undefined) return;
      this.entryList[index] = replacement.entry;
      this.byId.set(entry.id, replacement.entry);
      bytesBefore += range.length;
      bytesAfter += replacement.line.length;
      shift += replacement.line.length - range.length;
      range.length = replacement.line.length;
    });
    this.fileSize += shift;
    this.branchCache = undefined;
    this.dirty = false;
    return {
      changed: true,
      bytesFreed: Math.max(0, bytesBefore - bytesAfter),
      rewrittenEntries: replacements.length,
    };
  }

  /** The old descriptor points at the replaced file; appends must go to the new one. */
  private async reopenAfterRewrite(oldHandle: FileHandle): Promise<void> {
    this.handle = undefined;
    await oldHandle.close().catch(() => undefined);
    try {
      this.handle = await this.settings.operations.openForAppending(this.location);
    } catch (error) {
      throw this.writeError("append after rewrite", "io", `cannot reopen: ${describeError(error)}`, error);
    }
  }
}
