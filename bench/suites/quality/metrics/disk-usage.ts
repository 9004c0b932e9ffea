/**
 * M11, bytes on disk per message. A user of an engine with its own store pays for the transcript
 * (the host always keeps it) and for the store, so both are reported, apart and together, over the
 * raw JSONL of the stored messages. The store is measured twice: open, as the engine reports it
 * (a SQLite write-ahead log is kept at its size limit between checkpoints, so a small workload
 * looks large), and closed, as its state folder is once the engine was disposed (logs merged).
 */
import type { AgentMessage } from "@clew/core";
import type { BenchEngineStats } from "../../../engine-stats.js";
import { measureStoreSize } from "../../../metrics/store-size.js";
import { type EngineSession, NO_ENGINE_STORE } from "../harness/engine-session.js";
import { type Figure, isNotApplicable, type NotApplicable, notApplicable, share } from "./figure.js";

/** What is measured while the session is open. */
export interface OpenDiskUsage {
  /** Messages on the transcript's active branch. */
  messages: number;
  /** Bytes of those messages as JSONL lines. */
  rawBytes: number;
  /** The host's transcript folder: the JSONL and its index. */
  transcriptBytes: number;
  /** Bytes of compaction summaries in the transcript. */
  transcriptSummaryBytes: number;
  /** The engine's report, or why there is none. */
  stats: BenchEngineStats | NotApplicable;
}

export interface DiskUsage {
  messages: number;
  rawBytes: number;
  transcriptBytes: number;
  /** The engine's store while open (its own report: every file, write-ahead log included). */
  storeOpenBytes: Figure;
  /** The engine's state folder after the engine was disposed. */
  storeClosedBytes: Figure;
  /** Summary bytes in the transcript, plus the store's when the engine reports them. */
  summaryBytes: Figure;
  /** Transcript and closed store over the messages. */
  bytesPerMessage: number;
  transcriptToRaw: number;
  storeToRaw: Figure;
  storeOpenToRaw: Figure;
  /** Transcript and closed store over the raw JSONL. */
  diskToRaw: number;
}

/** The open half of M11: the transcript, and the store as the engine reports it. */
export async function measureOpenDisk(session: EngineSession): Promise<OpenDiskUsage> {
  const { messages, summaryBytes } = await session.storedMessages();
  return {
    messages: messages.length,
    rawBytes: rawJsonlBytes(messages),
    transcriptBytes: await directoryBytes(session.transcriptDir),
    transcriptSummaryBytes: summaryBytes,
    stats: await session.engineStats(),
  };
}

/**
 * The closed half: the engine's state folder, for an engine that reports a store (the others keep
 * nothing the bench can attribute to them). Call after `session.close()`.
 */
export async function measureClosedStore(session: EngineSession): Promise<Figure> {
  return session.reportsStore ? directoryBytes(session.stateDir) : notApplicable(NO_ENGINE_STORE);
}

/** Both halves combined into the M11 figures; a store without stats counts as no store. */
export function diskUsageOf(open: OpenDiskUsage, storeClosedBytes: Figure): DiskUsage {
  const stats = open.stats;
  const closed = isNotApplicable(stats) ? stats : storeClosedBytes;
  const storeOpenBytes: Figure = isNotApplicable(stats) ? stats : stats.storeBytes;
  const total = open.transcriptBytes + (typeof closed === "number" ? closed : 0);
  return {
    messages: open.messages,
    rawBytes: open.rawBytes,
    transcriptBytes: open.transcriptBytes,
    storeOpenBytes,
    storeClosedBytes: closed,
    summaryBytes: summaryBytesOf(open),
    bytesPerMessage: share(total, open.messages),
    transcriptToRaw: share(open.transcriptBytes, open.rawBytes),
    storeToRaw: ratio(closed, open.rawBytes),
    storeOpenToRaw: ratio(storeOpenBytes, open.rawBytes),
    diskToRaw: share(total, open.rawBytes),
  };
}

function summaryBytesOf(open: OpenDiskUsage): Figure {
  const stats = open.stats;
  if (isNotApplicable(stats)) return open.transcriptSummaryBytes;
  const inStore = stats.summaries.summaryBytes;
  return inStore === undefined
    ? notApplicable("summaries in the store: see M12")
    : open.transcriptSummaryBytes + inStore;
}

function ratio(bytes: Figure, rawBytes: number): Figure {
  return typeof bytes === "number" ? share(bytes, rawBytes) : bytes;
}

/** Bytes of every file under `path` (0 when it does not exist). */
async function directoryBytes(path: string): Promise<number> {
  return (await measureStoreSize(path)).bytes;
}

/** Bytes of the messages as JSONL lines: the raw size the store is compared with. */
export function rawJsonlBytes(messages: readonly AgentMessage[]): number {
  return messages.reduce((sum, message) => sum + Buffer.byteLength(JSON.stringify(message), "utf8") + 1, 0);
}
