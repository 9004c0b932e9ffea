/**
 * Reads the messages of an existing session transcript for bootstrap: the active branch (from the
 * newest entry back to the root) of a JSONL transcript in any format `importTranscript` knows
 * (Clew, pi, OpenClaw, Claude Code). Read only: the file is never written or locked.
 *
 * Version-3 files (what Clew, pi and OpenClaw write) take the fast path of `transcript-branch.ts`;
 * everything else, and any file the fast path cannot read exactly as the import would, goes
 * through `importTranscript`. Both give the same messages.
 */
import { readFile } from "node:fs/promises";
import { type AgentMessage, importTranscript, type TranscriptEntry } from "@clew/core";
import { readVersion3Branch } from "./transcript-branch.js";

export type TranscriptMessages = { ok: true; messages: AgentMessage[] } | { ok: false; reason: string };

/** The branch's messages, or why there are none to read. Never throws. */
export async function readTranscriptMessages(
  sessionFile: string,
  sessionId: string,
): Promise<TranscriptMessages> {
  if (!sessionFile.endsWith(".jsonl")) return { ok: false, reason: `not a JSONL transcript: ${sessionFile}` };
  let text: string;
  try {
    const fast = await readVersion3Branch(sessionFile);
    if (fast !== undefined) return { ok: true, messages: fast };
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

/** Root first; the newest entry is the leaf. A parent cycle stops at the entry count. */
function activeBranch(entries: readonly TranscriptEntry[]): TranscriptEntry[] {
  const byId = new Map(entries.map((entry) => [entry.id, entry]));
  const branch: TranscriptEntry[] = [];
  let id: string | null = entries.at(-1)?.id ?? null;
  while (id !== null && branch.length < entries.length) {
    const entry = byId.get(id);
    if (entry === undefined) break;
    branch.push(entry);
    id = entry.parentId;
  }
  return branch.reverse();
}

function messageOf(entry: TranscriptEntry): AgentMessage[] {
  if (entry.type !== "message") return [];
  const message = (entry as { message?: unknown }).message;
  return typeof message === "object" && message !== null ? [message as AgentMessage] : [];
}
