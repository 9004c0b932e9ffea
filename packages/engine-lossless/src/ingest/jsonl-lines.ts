/**
 * Reads a file a line at a time as bytes, through one buffer that is reused from chunk to chunk
 * (it grows only for a line longer than itself). A long transcript is never held in memory
 * whole: on a machine where fresh memory is expensive to touch, that costs more than the parsing.
 */
import type { FileHandle } from "node:fs/promises";

const CHUNK_BYTES = 1 << 20;
const NEWLINE = 0x0a;

/** Where a line sits in the file: `offset` is its first byte; `terminated` when a newline ends it. */
export interface LinePlace {
  offset: number;
  terminated: boolean;
}

export type LineVisitor = (bytes: Buffer, start: number, end: number, place: LinePlace) => boolean;

/**
 * Calls `visit` with every line of the open file from byte `from` (a line start) to its current
 * end, without its newline (a last line without one included), in order, until it returns false.
 * The bytes are valid only during the call. Throws what the file system throws; `visit`'s throws
 * pass through.
 */
export async function forEachLineOf(handle: FileHandle, from: number, visit: LineVisitor): Promise<void> {
  let buffer: Buffer = Buffer.allocUnsafe(CHUNK_BYTES);
  let filled = 0;
  /** The file offset of `buffer[0]`. */
  let base = from;
  for (;;) {
    if (filled === buffer.length) buffer = grown(buffer, filled);
    const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, base + filled);
    const chunk = buffer.subarray(0, filled + bytesRead);
    let start = 0;
    for (let newline = chunk.indexOf(NEWLINE); newline >= 0; newline = chunk.indexOf(NEWLINE, start)) {
      if (!visit(chunk, start, newline, { offset: base + start, terminated: true })) return;
      start = newline + 1;
    }
    if (bytesRead === 0) {
      if (start < chunk.length)
        visit(chunk, start, chunk.length, { offset: base + start, terminated: false });
      return;
    }
    // The partial line moves to the front; the next read appends to it.
    filled = chunk.copy(buffer, 0, start);
    base += start;
  }
}

/** Bytes `[start, end)` of an open file (fewer when it ends before). */
export async function readBytes(handle: FileHandle, start: number, end: number): Promise<Buffer> {
  const buffer = Buffer.alloc(Math.max(0, end - start));
  let filled = 0;
  while (filled < buffer.length) {
    const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, start + filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return buffer.subarray(0, filled);
}

function grown(buffer: Buffer, filled: number): Buffer {
  const bigger = Buffer.allocUnsafe(buffer.length * 2);
  buffer.copy(bigger, 0, 0, filled);
  return bigger;
}
