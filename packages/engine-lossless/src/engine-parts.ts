/**
 * What the lossless engine holds only when it has a store, built from its resolved options and
 * wired together: the view cache every part reads through, message writing, the evidence cache,
 * the flight recorder, upkeep, summary preparation and the compaction runner. Without a store the
 * engine holds none of it and every call fails open (see `lossless-engine.ts`).
 */
import { EvidenceCache } from "./assemble/evidence-cache.js";
import { CompactionRunner } from "./compaction/compaction-runner.js";
import { createSemanticRecall, type SemanticRecall } from "./embeddings/semantic-recall.js";
import { createSoftTermRecall } from "./embeddings/word-vectors/soft-term-recall.js";
import { loadWordVectors } from "./embeddings/word-vectors/word-vector-table.js";
import { MessageWriter } from "./ingest/message-writer.js";
import type { ResolvedOptions } from "./options.js";
import { SummaryPreparation } from "./prepare/preparation.js";
import { FlightRecorder } from "./recorder/flight-recorder.js";
import { PeriodicUpkeep } from "./retention/upkeep.js";
import type { LosslessStore } from "./store/store.js";
import { ViewCache } from "./view/view-cache.js";

export interface StoreParts {
  store: LosslessStore;
  views: ViewCache;
  writer: MessageWriter;
  evidence: EvidenceCache;
  recorder: FlightRecorder;
  upkeep: PeriodicUpkeep;
  preparation: SummaryPreparation;
  compactions: CompactionRunner;
  /** Search by meaning, when an embedder or word vectors are configured. */
  meaning: SemanticRecall | undefined;
}

/**
 * Builds the parts over `store`; opens nothing and starts no work, except loading the word-vector
 * file when one is configured (in the background: searches wait for it).
 */
export function createStoreParts(store: LosslessStore, options: ResolvedOptions): StoreParts {
  const counter = options.tokenCounter;
  const views = new ViewCache(store);
  const preparation = new SummaryPreparation(store, options);
  const recorder = new FlightRecorder(store, { ...options, summarizer: () => options.summarizer.id });
  const compactions = new CompactionRunner({
    store,
    views,
    settings: { ...options, counter, grants: preparation.grants },
    compactionThreshold: options.compactionThreshold,
    beginPass: (sessionId, trigger, view, target) => recorder.beginPass(sessionId, trigger, view, target),
    leafSupply: (sessionId) => preparation.leafSupply(sessionId),
  });
  const meaning = semanticRecallOf(options);
  return {
    store,
    views,
    writer: new MessageWriter({ store, views, counter, now: options.now, logger: options.logger }),
    evidence: new EvidenceCache({ ...options, store, counter, meaning }),
    recorder,
    upkeep: new PeriodicUpkeep(store, options, options.now, options.logger),
    preparation,
    compactions,
    meaning,
  };
}

function semanticRecallOf(options: ResolvedOptions): SemanticRecall | undefined {
  if (options.embedder !== undefined)
    return createSemanticRecall(options.embedder, { logger: options.logger });
  const table =
    options.wordVectorTable ??
    (options.wordVectors === undefined ? undefined : loadWordVectors(options.wordVectors));
  return table === undefined ? undefined : createSoftTermRecall(table, { logger: options.logger });
}
