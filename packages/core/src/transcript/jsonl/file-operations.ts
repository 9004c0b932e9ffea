/**
 * The file operations behind JSONL transcripts: the injectable set (so tests can count reads and
 * syncs or fail a rename without mocking modules) and small write helpers that never leave a
 * partial write unreported.
 */
import { type FileHandle, open, rename } from "node:fs/promises";

const COPY_CHUNK_BYTES = 1024 * 1024;

/** The file operations a transcript performs, injectable to count or fail them in tests. */
export interface TranscriptFileOperations {
  /** Opens a file for reading; every load and every rewrite reads through this. */
  openForReading(path: string): Promise<FileHandle>;
  /** Opens a transcript for appending (O_APPEND). */
  openForAppending(path: string): Promise<FileHandle>;
  /** Makes a file's written data durable. */
  fsync(handle: FileHandle): Promise<void>;
  /** Replaces `to` with `from` atomically. */
  rename(from: string, to: string): Promise<void>;
}

export const nodeFileOperations: TranscriptFileOperations = {
  openForReading: (path) => open(path, "r"),
  openForAppending: (path) => open(path, "a"),
  fsync: (handle) => handle.datasync(),
  rename: (from, to) => rename(from, to),
};

/** Best-effort fsync of a folder, so a created or renamed file survives a crash; some platforms refuse it. */
export async function fsyncDirectory(directory: string): Promise<void> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(directory, "r");
    await handle.sync();
  } catch {
    // Windows and some file systems cannot sync a folder; the rename itself still happened.
  } finally {
    await handle?.close();
  }
}

/** Writes every byte of `buffers`, in one `writev` when the OS allows; `progress` counts bytes written so far. */
export async function writeFully(
  handle: FileHandle,
  buffers: Buffer[],
  progress: { written: number },
): Promise<void> {
  let pending = buffers;
  while (pending.length > 0) {
    const { bytesWritten } = await handle.writev(pending);
    if (bytesWritten === 0) throw new Error("the file system accepted no bytes");
    progress.written += bytesWritten;
    pending = dropBytes(pending, bytesWritten);
  }
}

function dropBytes(buffers: Buffer[], count: number): Buffer[] {
  let remaining = count;
  let index = 0;
  while (index < buffers.length && remaining >= (buffers[index]?.length ?? 0)) {
    remaining -= buffers[index]?.length ?? 0;
    index += 1;
  }
  const rest = buffers.slice(index);
  const first = rest[0];
  if (first !== undefined && remaining > 0) rest[0] = first.subarray(remaining);
  return rest;
}

/** Copies bytes `[start, end)` of `source` to the current end of `target`. */
export async function copyRange(
  source: FileHandle,
  target: FileHandle,
  start: number,
  end: number,
): Promise<void> {
  const buffer = Buffer.allocUnsafe(Math.min(COPY_CHUNK_BYTES, Math.max(1, end - start)));
  let position = start;
  while (position < end) {
    const wanted = Math.min(buffer.length, end - position);
    const { bytesRead } = await source.read(buffer, 0, wanted, position);
    if (bytesRead === 0) throw new Error(`file ended at byte ${position}, expected ${end}`);
    await writeFully(target, [buffer.subarray(0, bytesRead)], { written: 0 });
    position += bytesRead;
  }
}
