import { stat } from "node:fs/promises";
import type { JsonlTranscriptStore, NewTranscriptEntry } from "@clew/core";
import type { Workload } from "../../workloads/workload.js";

export interface IngestMetrics {
  entries: number;
  messages: number;
  batchSize: number;
  seconds: number;
  messagesPerSecond: number;
  /** Transcript file size right after ingest, header included. */
  bytes: number;
  bytesPerMessage: number;
}

/**
 * Bulk-appends the workload into a new transcript `sessionId` of agent `main`, `batchSize`
 * entries per append, then flushes. Timed from create to the end of the flush; the close after it
 * is not timed. Throws what the store throws (a workload with a duplicate id, for one).
 */
export async function measureIngest(
  store: JsonlTranscriptStore,
  workload: Workload,
  options: { sessionId: string; batchSize: number },
): Promise<IngestMetrics> {
  const started = performance.now();
  const transcript = await store.create({ agentId: "main", sessionId: options.sessionId, cwd: "/bench" });
  let entries = 0;
  let finished = 0;
  try {
    let batch: NewTranscriptEntry[] = [];
    for (const entry of workload.entries()) {
      batch.push(entry);
      if (batch.length < options.batchSize) continue;
      await transcript.append(batch);
      entries += batch.length;
      batch = [];
    }
    if (batch.length > 0) await transcript.append(batch);
    entries += batch.length;
    await transcript.flush();
    finished = performance.now();
  } finally {
    await transcript.close();
  }
  const seconds = (finished - started) / 1000;
  const { size } = await stat(store.transcriptPath("main", options.sessionId));
  return {
    entries,
    messages: workload.messages,
    batchSize: options.batchSize,
    seconds,
    messagesPerSecond: workload.messages / seconds,
    bytes: size,
    bytesPerMessage: size / workload.messages,
  };
}
