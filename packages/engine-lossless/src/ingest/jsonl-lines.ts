/**
 * Reads a file a line at a time as bytes, through one buffer that is reused from chunk to chunk
 * (it grows only for a line longer than itself). A long transcript is never held in memory
 * whole: on a machine where fresh memory is expensive to touch, that costs more than the parsing.
 */
import { open } from "node:fs/promises";

const CHUNK_BYTES = 1 << 20;
const NEWLINE = 0x0a;

/**
 * Calls `visit` with every line of the file, without its newline (a last line without one
 * included), in order, until it returns false. The bytes are valid only during the call.
 * Throws what the file system throws (missing file, permissions); `visit`'s throws pass through.
 */
export async function forEachLine(
  path: string,
  visit: (bytes: Buffer, start: number, end: number) => boolean,
): Promise<void> {
  const handle = await open(path, "r");
  try {
    let buffer: Buffer = Buffer.allocUnsafe(CHUNK_BYTES);
    let filled = 0;
    for (;;) {
      if (filled === buffer.length) buffer = grown(buffer, filled);
      const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, null);
      const chunk = buffer.subarray(0, filled + bytesRead);
      let start = 0;
      for (let newline = chunk.indexOf(NEWLINE); newline >= 0; newline = chunk.indexOf(NEWLINE, start)) {
        if (!visit(chunk, start, newline)) return;
        start = newline + 1;
      }
      if (bytesRead === 0) {
        if (start < chunk.length) visit(chunk, start, chunk.length);
        return;
      }
      // The partial line moves to the front; the next read appends to it.
      filled = chunk.copy(buffer, 0, start);
    }
  } finally {
    await handle.close();
  }
}

function grown(buffer: Buffer, filled: number): Buffer {
  const bigger = Buffer.allocUnsafe(buffer.length * 2);
  buffer.copy(bigger, 0, 0, filled);
  return bigger;
}
