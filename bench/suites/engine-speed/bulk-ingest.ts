/**
 * Bulk ingest: an existing history brought into the engine in one go, through the path a host
 * would use for it. `bootstrap` of the transcript first (what a host calls for a session that
 * existed before the process); without it, or when it declines, `ingestBatch` of the whole
 * history; without that, `ingest` per message.
 */
import type { AgentMessage, ContextEngine } from "@clew/core";

export type IngestPath = "bootstrap" | "ingestBatch" | "ingest" | "afterTurn";

export interface BulkIngestMetrics {
  path: IngestPath;
  /** Why `bootstrap` was not the path although the engine has one. */
  bootstrapDeclined?: string;
  messages: number;
  /** Messages the engine says it stored; 0 for an engine that keeps no copy of them. */
  stored: number;
  seconds: number;
  messagesPerSecond: number;
}

export interface BulkIngestRequest {
  sessionId: string;
  sessionKey: string;
  /** The JSONL transcript holding exactly `messages`. */
  sessionFile: string;
  messages: readonly AgentMessage[];
}

/** Times the bulk path (see the file comment). Throws what the engine throws. */
export async function measureBulkIngest(
  engine: ContextEngine,
  request: BulkIngestRequest,
): Promise<BulkIngestMetrics> {
  const identity = { sessionId: request.sessionId, sessionKey: request.sessionKey };
  // Engines must not mutate what they are given; a copy keeps the caller's array safe regardless.
  const batch = [...request.messages];
  const started = performance.now();
  let bootstrapDeclined: string | undefined;
  if (engine.bootstrap !== undefined) {
    const result = await engine.bootstrap({ ...identity, sessionFile: request.sessionFile });
    if (result.bootstrapped) {
      const stored = result.importedMessages ?? request.messages.length;
      return rate("bootstrap", request.messages.length, stored, started);
    }
    bootstrapDeclined = result.reason ?? "bootstrap declined without a reason";
  }
  const measured =
    engine.ingestBatch !== undefined
      ? rate(
          "ingestBatch",
          batch.length,
          (await engine.ingestBatch({ ...identity, messages: batch })).ingestedCount,
          started,
        )
      : rate("ingest", batch.length, await ingestEach(engine, identity, batch), started);
  return bootstrapDeclined === undefined ? measured : { ...measured, bootstrapDeclined };
}

/** `ingest` per message, as a host does for an engine with neither `afterTurn` nor `ingestBatch`. */
export async function ingestEach(
  engine: ContextEngine,
  identity: { sessionId: string; sessionKey: string },
  messages: readonly AgentMessage[],
): Promise<number> {
  let stored = 0;
  for (const message of messages) {
    if ((await engine.ingest({ ...identity, message })).ingested) stored += 1;
  }
  return stored;
}

function rate(path: IngestPath, messages: number, stored: number, startedMs: number): BulkIngestMetrics {
  const seconds = (performance.now() - startedMs) / 1000;
  return { path, messages, stored, seconds, messagesPerSecond: messages / seconds };
}
