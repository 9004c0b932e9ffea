/**
 * The fast path of bootstrap's transcript reading: the messages of the active branch of a
 * version-3 JSONL transcript (what Clew, pi and OpenClaw write today), read straight from the
 * file's bytes a line at a time, keeping of each entry only what the branch walk needs (its id,
 * its parent, and the message of a message entry).
 *
 * It answers exactly what `activeBranch(importTranscript(text).entries)` answers, or `undefined`
 * when it cannot promise that, and the caller then runs the full import:
 * - the first line holding a JSON object must be a session header of version 3 (other versions,
 *   Claude Code files, empty or unreadable files go through `importTranscript`);
 * - every kept entry must have a string `id`, a `parentId` that is a string or null and a string
 *   `timestamp` (the import repairs other entries: derived ids, chained parents).
 * Skipped as the import skips them: blank lines, lines that are not a JSON object (a torn last
 * line), entries without a `type`, second session headers, message entries without a message
 * object, and entries repeating an earlier entry's id (the first one stays).
 *
 * The file is read in chunks (`jsonl-lines.ts`) and each line decoded apart, never the whole
 * file as one string: most lines are ASCII and stay one-byte strings. A line never splits a UTF-8
 * sequence, since the newline byte occurs in no multi-byte sequence.
 */
import type { FileHandle } from "node:fs/promises";
import { open } from "node:fs/promises";
import { type AgentMessage, parentChain } from "@clew/core";
import { forEachLineOf, type LinePlace } from "./jsonl-lines.js";

export interface BranchNode {
  parentId: string | null;
  /** The message of a message entry; undefined for every other entry type. */
  message: AgentMessage | undefined;
}

type EntryVerdict = { keep: true; id: string; node: BranchNode } | { keep: false; fallback: boolean };

/** What a scan of entries found, with where its whole lines end (for the watermark). */
export interface EntryScan {
  nodes: Map<string, BranchNode>;
  /** The newest entry kept. */
  leafId: string | undefined;
  /** The newest entry kept from a line a newline ends (a last line may still be being written). */
  terminatedLeafId: string | undefined;
  /** The end of the last line a newline ends (after the newline); the scan's start when none. */
  end: number;
  /** Where that line starts; -1 when the scan met no such line. */
  lastLineStart: number;
}

/**
 * Root first; `undefined` means "use the full import" (see the file comment), decided as soon as a
 * line shows it. Throws what reading the file throws.
 */
export async function readVersion3Branch(path: string): Promise<AgentMessage[] | undefined> {
  const handle = await open(path, "r");
  try {
    const scan = await scanVersion3(handle);
    return scan === undefined ? undefined : branchMessages(scan.nodes, scan.leafId);
  } finally {
    await handle.close();
  }
}

/** The whole file's entries, or undefined when it needs the full import (see the file comment). */
export async function scanVersion3(handle: FileHandle): Promise<EntryScan | undefined> {
  let headerSeen = false;
  let fallback = false;
  const scan = await scanEntries(handle, 0, (value) => {
    if (headerSeen) return "entry";
    headerSeen = true;
    fallback = !isVersion3Header(value);
    return fallback ? "fallback" : "skip";
  });
  return headerSeen && !fallback && scan !== undefined ? scan : undefined;
}

/**
 * Entries from byte `from` (a line start) to the end of the file; undefined as soon as one needs
 * the full import. `first` judges each object line before the entry rules do: the header check of
 * a whole-file scan.
 */
export async function scanEntries(
  handle: FileHandle,
  from: number,
  first?: (value: Record<string, unknown>) => "entry" | "skip" | "fallback",
): Promise<EntryScan | undefined> {
  const scan: EntryScan = {
    nodes: new Map(),
    leafId: undefined,
    terminatedLeafId: undefined,
    end: from,
    lastLineStart: -1,
  };
  let fallback = false;
  await forEachLineOf(handle, from, (bytes, start, end, place: LinePlace) => {
    if (place.terminated) {
      scan.end = place.offset + (end - start) + 1;
      scan.lastLineStart = place.offset;
    }
    const value = parseObjectLine(bytes, start, end);
    if (value === undefined) return true;
    const decision = first?.(value) ?? "entry";
    if (decision === "fallback") fallback = true;
    if (decision !== "entry") return !fallback;
    const verdict = judgeEntry(value, scan.nodes);
    if (verdict.keep) {
      scan.nodes.set(verdict.id, verdict.node);
      scan.leafId = verdict.id;
      if (place.terminated) scan.terminatedLeafId = verdict.id;
    } else if (verdict.fallback) {
      fallback = true;
    }
    return !fallback;
  });
  return fallback ? undefined : scan;
}

/** The line's JSON object, or undefined for a blank line, bad JSON or another JSON value. */
function parseObjectLine(bytes: Buffer, start: number, end: number): Record<string, unknown> | undefined {
  if (end <= start) return undefined;
  const text = bytes.toString("utf8", start, end);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // The import trims each line first, which also drops whitespace JSON does not allow (a BOM).
    try {
      value = JSON.parse(text.trim());
    } catch {
      return undefined;
    }
  }
  return isRecord(value) ? value : undefined;
}

function isVersion3Header(value: Record<string, unknown>): boolean {
  return value.type === "session" && value.version === 3;
}

/** What the import does with the entry: keep it as it is, skip it, or repair it (fallback). */
function judgeEntry(value: Record<string, unknown>, nodes: ReadonlyMap<string, BranchNode>): EntryVerdict {
  const type = value.type;
  if (typeof type !== "string" || type === "session") return { keep: false, fallback: false };
  const message = value.message;
  if (type === "message" && !isRecord(message)) return { keep: false, fallback: false };
  const id = value.id;
  if (typeof id !== "string") return { keep: false, fallback: true };
  if (nodes.has(id)) return { keep: false, fallback: false };
  const parentId = value.parentId;
  const wellFormed =
    (parentId === null || typeof parentId === "string") && typeof value.timestamp === "string";
  if (!wellFormed) return { keep: false, fallback: true };
  return {
    keep: true,
    id,
    node: { parentId, message: type === "message" ? (message as unknown as AgentMessage) : undefined },
  };
}

/** The messages from the newest entry back to the root, root first (see core's `parentChain`). */
export function branchMessages(
  nodes: ReadonlyMap<string, BranchNode>,
  leafId: string | undefined,
): AgentMessage[] {
  return parentChain(nodes, leafId ?? null).chain.flatMap((node) =>
    node.message === undefined ? [] : [node.message],
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
