export { isRecalledContext } from "./assemble/recall-evidence.js";
export {
  createLosslessEngineFactory,
  LOSSLESS_DATABASE_FILE,
  type LosslessEngineFactoryOptions,
  openLosslessEngine,
} from "./create-lossless-engine.js";
export type { TextEmbedder } from "./embeddings/text-embedder.js";
export { BUILTIN_WORD_VECTORS, WordVectorFileError } from "./embeddings/word-vectors/word-vector-table.js";
export { LosslessStoreConflictError, LosslessStoreError } from "./errors.js";
export { canonicalJson, messageDigest } from "./ingest/message-identity.js";
export {
  InvalidDurationError,
  LosslessRecordNotFoundError,
  LosslessSessionNotFoundError,
} from "./inspect/errors.js";
export {
  formatAssembly,
  formatCacheEffect,
  formatPass,
  formatProviderCache,
  formatStatusLines,
} from "./inspect/format-report.js";
export { isEmptyCacheEffect, type PassCacheEffect, readPassCacheEffect } from "./inspect/provider-cache.js";
export { type LosslessSessionReport, readSessionReport } from "./inspect/session-report.js";
export { LOSSLESS_ENGINE_VERSION, LosslessEngine } from "./lossless-engine.js";
export { DEFAULT_TUNING, type LosslessEngineOptions, type LosslessTuning } from "./options.js";
export { LOSSLESS_PLUGIN_ID } from "./plugin.js";
export type { SummarySpendReport } from "./prepare/spend-report.js";
export type { MessageDescription, SummaryDescription } from "./recall/recall-describe.js";
export type { RecalledMessage, RecallPage, RecallReadRequest } from "./recall/recall-read.js";
export type { RecallHit, RecallMatch } from "./recall/recall-search.js";
export { RECALL_TOOL_NAMES, recallPolicy } from "./recall-policy.js";
export type { ModelCallCache, ProviderCacheFigures } from "./recorder/model-call-cache.js";
export {
  executePrune,
  type PrunePlan,
  type PruneResult,
  type PruneSelector,
  parseDuration,
  planPrune,
} from "./retention/prune-sessions.js";
export { type RetentionSettings, recordRetention, runUpkeep, type UpkeepResult } from "./retention/upkeep.js";
export { openSqliteStoreReadOnly } from "./store/sqlite/open-read-only.js";
export {
  openSqliteStore,
  SqliteLosslessStore,
  type SqliteStoreOptions,
} from "./store/sqlite/sqlite-store.js";
export type * from "./store/store.js";
export { ParentRecallError, type ParentRecallRefusal } from "./subagents/parent-recall-error.js";
export type { ParentHistory, RecallScope } from "./tools/recall-scope.js";
export { createRecallTools, type RecallTool } from "./tools/recall-tools.js";
