/**
 * Bootstrap's transcript watermark: how far a session's version-3 transcript is imported, so a
 * process start reads only the lines appended since (`readTranscriptTail`) instead of re-reading
 * and re-parsing the whole file.
 *
 * A watermark holds only while the imported bytes are still the file's first bytes. That is
 * checked, not assumed: the same path, the same file (device and inode: a rewrite writes a new
 * file and renames it over the old one), no shorter than the watermark, and the same first line
 * (the session header) and the same last imported line. Anything else (a rewrite, a truncation,
 * another file) reads the whole file again; storing by identity keeps that from storing anything
 * twice, so a watermark that is stale (a crash before it was written) costs time, never messages.
 *
 * The tail's entries must continue the imported branch: walking back from the newest entry, the
 * chain must end in the tail (a new root) or at the watermark's leaf. A chain that reaches another
 * entry of the imported part switches branches there, and entries of that branch were never read
 * as messages, so the whole file is read again. Entry ids are taken as unique across the file
 * (hosts write random ids); only an id repeating the watermark's leaf is caught here.
 *
 * Identities of a tail are numbered among the tail's messages only, as a turn's are (see
 * `message-identity.ts`: identical messages arriving in different calls are the same message).
 */
import { createHash } from "node:crypto";
import type { FileHandle } from "node:fs/promises";
import { type AgentMessage, parentChain } from "@clew/core";
import type { TranscriptWatermark } from "../store/store.js";
import { readBytes } from "./jsonl-lines.js";
import { type EntryScan, scanEntries } from "./transcript-branch.js";

/** A header line longer than this is not hashed: such a file is read whole every time. */
const MAX_HEAD_BYTES = 64 * 1024;

export interface TailRead {
  messages: AgentMessage[];
  watermark: TranscriptWatermark;
}

/** The file's identity as the watermark records it. */
export async function fileIdOf(handle: FileHandle): Promise<{ fileId: string; size: number }> {
  const stats = await handle.stat();
  return { fileId: `${stats.dev}:${stats.ino}`, size: stats.size };
}

/** The watermark after a whole-file scan; undefined when the file gives nothing to check by. */
export async function watermarkAfterScan(
  handle: FileHandle,
  file: string,
  scan: EntryScan,
): Promise<TranscriptWatermark | undefined> {
  if (scan.lastLineStart < 0) return undefined;
  const headHash = await headHashOf(handle);
  if (headHash === undefined) return undefined;
  const { fileId } = await fileIdOf(handle);
  return {
    file,
    fileId,
    offset: scan.end,
    headHash,
    tailStart: scan.lastLineStart,
    tailHash: sha256(await readBytes(handle, scan.lastLineStart, scan.end)),
    leafId: scan.terminatedLeafId ?? null,
  };
}

/**
 * The messages appended after `watermark` and the watermark after them; undefined when the
 * watermark no longer holds for this file or the tail does not continue the imported branch
 * (the caller then reads the whole file). Throws what reading the file throws.
 */
export async function readTranscriptTail(
  handle: FileHandle,
  file: string,
  watermark: TranscriptWatermark,
): Promise<TailRead | undefined> {
  if (!(await stillHolds(handle, file, watermark))) return undefined;
  const scan = await scanEntries(handle, watermark.offset);
  if (scan === undefined) return undefined;
  if (watermark.leafId !== null && scan.nodes.has(watermark.leafId)) return undefined;
  const messages = continuingBranch(scan, watermark.leafId);
  if (messages === undefined) return undefined;
  if (scan.lastLineStart < 0) return { messages, watermark };
  return {
    messages,
    watermark: {
      ...watermark,
      offset: scan.end,
      tailStart: scan.lastLineStart,
      tailHash: sha256(await readBytes(handle, scan.lastLineStart, scan.end)),
      leafId: scan.terminatedLeafId ?? watermark.leafId,
    },
  };
}

/** Whether the file still starts with the bytes the watermark was taken over. */
async function stillHolds(
  handle: FileHandle,
  file: string,
  watermark: TranscriptWatermark,
): Promise<boolean> {
  if (watermark.file !== file) return false;
  const { fileId, size } = await fileIdOf(handle);
  if (fileId !== watermark.fileId || size < watermark.offset) return false;
  if ((await headHashOf(handle)) !== watermark.headHash) return false;
  const tail = await readBytes(handle, watermark.tailStart, watermark.offset);
  return sha256(tail) === watermark.tailHash;
}

/**
 * Root first: the messages of the chain from the tail's newest entry back to where it leaves the
 * tail, when it leaves it at `leafId` or at a root; undefined otherwise (another branch, a cycle).
 */
function continuingBranch(scan: EntryScan, leafId: string | null): AgentMessage[] | undefined {
  const walk = parentChain(scan.nodes, scan.leafId ?? null);
  // A chain that leaves the tail must continue the imported branch.
  if (walk.cycle || (walk.missing !== null && walk.missing !== leafId)) return undefined;
  return walk.chain.flatMap((node) => (node.message === undefined ? [] : [node.message]));
}

/** sha256 of the file's first line (newline included), or undefined when it has none short enough. */
async function headHashOf(handle: FileHandle): Promise<string | undefined> {
  const head = await readBytes(handle, 0, MAX_HEAD_BYTES);
  const newline = head.indexOf(0x0a);
  return newline < 0 ? undefined : sha256(head.subarray(0, newline + 1));
}

function sha256(bytes: Buffer): string {
  return createHash("sha256").update(bytes).digest("hex");
}
