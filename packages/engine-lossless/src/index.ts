export {
  createLosslessEngineFactory,
  LOSSLESS_DATABASE_FILE,
  type LosslessEngineFactoryOptions,
  openLosslessEngine,
} from "./create-lossless-engine.js";
export { LosslessStoreConflictError, LosslessStoreError } from "./errors.js";
export { canonicalJson, messageDigest } from "./ingest/message-identity.js";
export { LOSSLESS_ENGINE_VERSION, LosslessEngine } from "./lossless-engine.js";
export { DEFAULT_TUNING, type LosslessEngineOptions, type LosslessTuning } from "./options.js";
export type { MessageDescription, SummaryDescription } from "./recall/recall-describe.js";
export type { RecalledMessage, RecallPage, RecallReadRequest } from "./recall/recall-read.js";
export type { RecallHit, RecallMatch } from "./recall/recall-search.js";
export { RECALL_TOOL_NAMES, recallPolicy } from "./recall-policy.js";
export {
  openSqliteStore,
  SqliteLosslessStore,
  type SqliteStoreOptions,
} from "./store/sqlite/sqlite-store.js";
export type * from "./store/store.js";
export type { RecallScope } from "./tools/recall-scope.js";
export { createRecallTools, type RecallTool } from "./tools/recall-tools.js";
