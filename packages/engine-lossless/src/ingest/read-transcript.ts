/**
 * Reads the messages of an existing session transcript for bootstrap: the active branch (from the
 * newest entry back to the root) of a JSONL transcript in any format `importTranscript` knows
 * (Clew, pi, OpenClaw, Claude Code). Read only: the file is never written or locked.
 *
 * Version-3 files (what Clew, pi and OpenClaw write) take the fast path of `transcript-branch.ts`;
 * everything else, and any file the fast path cannot read exactly as the import would, goes
 * through `importTranscript`. Both give the same messages.
 */
import { type FileHandle, open, readFile } from "node:fs/promises";
import { type AgentMessage, activeBranch, importTranscript, type TranscriptEntry } from "@clew/core";
import type { TranscriptWatermark } from "../store/store.js";
import { branchMessages, scanVersion3 } from "./transcript-branch.js";
import { readTranscriptTail, watermarkAfterScan } from "./transcript-watermark.js";

export type TranscriptMessages =
  | {
      ok: true;
      messages: AgentMessage[];
      /** Where the read ended, for the next one (version-3 files only). */
      watermark?: TranscriptWatermark;
      /** The messages are only those after `since` (which still held). */
      tailOnly?: boolean;
    }
  | { ok: false; reason: string };

/**
 * The branch's messages, or why there are none to read. With `since` (the watermark of an earlier
 * read of this file) and a file that still starts with what that read saw, only the messages
 * appended after it (see `transcript-watermark.ts`). Never throws.
 */
export async function readTranscriptMessages(
  sessionFile: string,
  sessionId: string,
  since?: TranscriptWatermark,
): Promise<TranscriptMessages> {
  if (!sessionFile.endsWith(".jsonl")) return { ok: false, reason: `not a JSONL transcript: ${sessionFile}` };
  let text: string;
  try {
    const handle = await open(sessionFile, "r");
    try {
      const fast = await readFast(handle, sessionFile, since);
      if (fast !== undefined) return fast;
    } finally {
      await handle.close();
    }
    text = await readFile(sessionFile, "utf8");
  } catch (error) {
    return { ok: false, reason: `cannot read ${sessionFile}: ${(error as Error).message}` };
  }
  try {
    const imported = importTranscript(text, { sourceName: sessionFile, sessionId });
    return { ok: true, messages: activeBranch(imported.entries).flatMap(messageOf) };
  } catch (error) {
    return { ok: false, reason: (error as Error).message };
  }
}

/** The version-3 paths: the tail after `since`, else the whole file; undefined for the import. */
async function readFast(
  handle: FileHandle,
  sessionFile: string,
  since: TranscriptWatermark | undefined,
): Promise<TranscriptMessages | undefined> {
  if (since !== undefined) {
    const tail = await readTranscriptTail(handle, sessionFile, since);
    if (tail !== undefined)
      return { ok: true, messages: tail.messages, watermark: tail.watermark, tailOnly: true };
  }
  const scan = await scanVersion3(handle);
  if (scan === undefined) return undefined;
  const messages = branchMessages(scan.nodes, scan.leafId);
  const watermark = await watermarkAfterScan(handle, sessionFile, scan);
  return watermark === undefined ? { ok: true, messages } : { ok: true, messages, watermark };
}

function messageOf(entry: TranscriptEntry): AgentMessage[] {
  if (entry.type !== "message") return [];
  const message = (entry as { message?: unknown }).message;
  return typeof message === "object" && message !== null ? [message as AgentMessage] : [];
}
