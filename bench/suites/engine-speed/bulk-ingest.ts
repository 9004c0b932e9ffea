/**
 * Bulk ingest: an existing history brought into the engine in one go. Two paths, since issue #8's
 * bulk target is about the store's ingest and `bootstrap` also reads and parses the transcript:
 * - the host path (`measureBulkIngest`): `bootstrap` of the transcript (what a host calls for a
 *   session that existed before the process); without it, or when it declines, `ingestBatch` in
 *   calls of `BULK_BATCH_MESSAGES`; without that, `ingest` per message;
 * - the batch path (`measureBatchIngest`): `ingestBatch` of the messages already in memory, in
 *   calls of `BULK_BATCH_MESSAGES`.
 */
import type { AgentMessage, ContextEngine } from "@clew/core";

export type IngestPath = "bootstrap" | "ingestBatch" | "ingest" | "afterTurn";

/** Messages per `ingestBatch` call: a host importing a long history hands it over in pieces. */
export const BULK_BATCH_MESSAGES = 500;

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

/** Times the host path (see the file comment). Throws what the engine throws. */
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
      ? rate("ingestBatch", batch.length, await ingestInBatches(engine, identity, batch), started)
      : rate("ingest", batch.length, await ingestEach(engine, identity, batch), started);
  return bootstrapDeclined === undefined ? measured : { ...measured, bootstrapDeclined };
}

/** The batch path's figures, or why it was not measured. */
export type BatchIngestOutcome =
  | ({ measured: true } & BulkIngestMetrics)
  | { measured: false; reason: string };

/**
 * Times `ingestBatch` of `request.messages` in calls of `BULK_BATCH_MESSAGES` on the engine
 * `open` builds (a fresh one, so nothing it stores is already there), then disposes it whatever
 * happens. Answers `measured: false` for an engine without `ingestBatch`; throws what the engine
 * throws.
 */
export async function measureBatchIngest(
  open: () => Promise<ContextEngine>,
  request: Omit<BulkIngestRequest, "sessionFile">,
): Promise<BatchIngestOutcome> {
  const engine = await open();
  try {
    if (engine.ingestBatch === undefined) return { measured: false, reason: "no ingestBatch" };
    const identity = { sessionId: request.sessionId, sessionKey: request.sessionKey };
    const batch = [...request.messages];
    const started = performance.now();
    const stored = await ingestInBatches(engine, identity, batch);
    return { measured: true, ...rate("ingestBatch", batch.length, stored, started) };
  } finally {
    await engine.dispose?.();
  }
}

/** `ingestBatch` in calls of `BULK_BATCH_MESSAGES`; the stored counts summed. */
async function ingestInBatches(
  engine: ContextEngine,
  identity: { sessionId: string; sessionKey: string },
  messages: readonly AgentMessage[],
): Promise<number> {
  const ingestBatch = engine.ingestBatch?.bind(engine);
  if (ingestBatch === undefined) throw new Error(`engine ${engine.info.id} has no ingestBatch`);
  let stored = 0;
  for (let start = 0; start < messages.length; start += BULK_BATCH_MESSAGES) {
    const slice = messages.slice(start, start + BULK_BATCH_MESSAGES);
    stored += (await ingestBatch({ ...identity, messages: slice })).ingestedCount;
  }
  return stored;
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
