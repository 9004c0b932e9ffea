/**
 * Bootstrap: imports what a session's transcript holds and the store lacks. The store keeps a
 * watermark of how far the transcript was imported (`transcript-watermark.ts`), so a process
 * start reads only what was appended since; a transcript that no longer starts with what was
 * imported is read whole again. Messages are stored by identity either way, so nothing is stored
 * twice.
 *
 * The watermark is written after the messages it covers are stored, in a write of its own: a
 * crash between the two leaves the older watermark, and the next bootstrap reads those lines
 * again and stores nothing new from them. A failed store write leaves the watermark where it was.
 */
import { type BootstrapResult, describeError, type Logger } from "@clew/core";
import type { LosslessStore, TranscriptWatermark } from "../store/store.js";
import type { MessageWriter } from "./message-writer.js";
import { readTranscriptMessages } from "./read-transcript.js";

export interface TranscriptBootstrap {
  store: LosslessStore;
  writer: MessageWriter;
  logger: Logger;
  sessionId: string;
  sessionFile: string;
}

/** Never throws: read failures answer `bootstrapped: false` with the reason; store failures are logged. */
export async function bootstrapFromTranscript(options: TranscriptBootstrap): Promise<BootstrapResult> {
  const { store, writer, logger, sessionId, sessionFile } = options;
  const since = await readWatermark(options);
  const transcript = await readTranscriptMessages(sessionFile, sessionId, since);
  if (!transcript.ok) return { bootstrapped: false, reason: transcript.reason };
  const importedMessages = await writer.storeReporting(sessionId, transcript.messages);
  const next = transcript.watermark;
  if (importedMessages !== undefined && next !== undefined && !sameWatermark(since, next)) {
    try {
      await store.writeTranscriptWatermark(sessionId, next);
    } catch (error) {
      logger.warn("lossless: recording how far the transcript was imported failed", {
        sessionId,
        error: describeError(error),
      });
    }
  }
  return { bootstrapped: true, importedMessages: importedMessages ?? 0 };
}

/** The stored watermark; undefined (logged) when it cannot be read, so the whole file is read. */
async function readWatermark(options: TranscriptBootstrap): Promise<TranscriptWatermark | undefined> {
  try {
    return await options.store.readTranscriptWatermark(options.sessionId);
  } catch (error) {
    options.logger.warn("lossless: store read failed", { error: describeError(error) });
    return undefined;
  }
}

function sameWatermark(before: TranscriptWatermark | undefined, after: TranscriptWatermark): boolean {
  return (
    before !== undefined &&
    before.file === after.file &&
    before.fileId === after.fileId &&
    before.offset === after.offset &&
    before.headHash === after.headHash &&
    before.tailHash === after.tailHash &&
    before.leafId === after.leafId
  );
}
