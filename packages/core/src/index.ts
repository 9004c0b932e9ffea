export { isPluginEnabled, resetPluginSlotsToDefaults } from "./config/plugin-state.js";
export type {
  ClewConfig,
  CompactionConfig,
  PluginEntryConfig,
  PluginSlotsConfig,
  PluginsConfig,
} from "./config/types.js";
export { abortReason, anySignal, isAbortForSignal } from "./context-engine/abort.js";
export {
  compactWithSafetyTimeout,
  DEFAULT_COMPACTION_TIMEOUT_MS,
} from "./context-engine/compaction-timeout.js";
export {
  assertContextEngineContract,
  listContextEngineContractIssues,
} from "./context-engine/contract-validation.js";
export { createContextEngineRegistry } from "./context-engine/create-registry.js";
export { GuardedContextEngine, type GuardedContextEngineOptions } from "./context-engine/guarded-engine.js";
export { findRejectedHostParams, HOST_PARAMS, projectHostParams } from "./context-engine/host-params.js";
export {
  ALL_HOST_CAPABILITIES,
  assertContextEngineHostSupport,
  type ContextEngineHostDescriptor,
  type ContextEngineHostSupport,
  embeddedHostDescriptor,
  evaluateContextEngineHostSupport,
} from "./context-engine/host-requirements.js";
export { createLegacyContextEngine, LegacyContextEngine } from "./context-engine/legacy/legacy-engine.js";
export {
  formatQuarantineLogLine,
  QuarantineLedger,
  type QuarantineOperation,
  type QuarantineRecord,
} from "./context-engine/quarantine.js";
export {
  CORE_OWNER,
  type ContextEngineRegistration,
  type ContextEngineRegistrationLifecycle,
  ContextEngineRegistry,
  DEFAULT_CONTEXT_ENGINE_ID,
  type RegisterContextEngineOptions,
  type RegisterContextEngineResult,
} from "./context-engine/registry.js";
export {
  type ContextEngineFallbackReason,
  createDefaultContextEngine,
  type ResolveContextEngineOptions,
  type ResolvedContextEngine,
  resolveContextEngine,
} from "./context-engine/resolve.js";
export {
  agentIdOfSessionKey,
  delegateCompactionToRuntime,
  type RuntimeCompactionRequest,
  RuntimeCompactionUnavailableError,
  type RuntimeCompactor,
  runWithRuntimeCompactor,
} from "./context-engine/runtime-compaction.js";
export {
  buildContextEngineRuntimeSettings,
  normalizeReasonCode,
  type RuntimeSettingsInput,
} from "./context-engine/runtime-settings.js";
export {
  type ContextEngineSelection,
  normalizeContextEngineSlot,
  selectContextEngine,
} from "./context-engine/selection.js";
export * from "./context-engine/types.js";
export {
  ClewError,
  type ClewErrorCategory,
  ContextEngineContractError,
  ContextEngineHostUnsupportedError,
  ContextEngineNotRegisteredError,
  ContextOverflowError,
  describeError,
  isClewError,
  SessionTargetConflictError,
  SubagentPreparationError,
} from "./errors.js";
export {
  type CompactionOutcome,
  type CompactionRequest,
  compactManually,
  compactPreflight,
  compactSession,
} from "./host/compaction.js";
export { ContextEngineHost, type HostModel } from "./host/context-engine-host.js";
export {
  type ContextEngineStatus,
  describeContextEngineStatus,
  formatContextEngineStatusLine,
} from "./host/engine-status.js";
export {
  type CompactionHookEvent,
  type CompactionTrigger,
  type ContextEngineHostHooks,
  type ContextEngineHostOptions,
  DEFAULT_RESERVE_TOKENS,
  MAX_OVERFLOW_COMPACTION_ATTEMPTS,
  PRECHECK_SAFETY_MARGIN,
  type SessionRuntimeCompactor,
} from "./host/host-options.js";
export { type HostSession, type SessionSuccessor, sessionTargetOf } from "./host/host-session.js";
export { createInMemoryRuntimeCompactor } from "./host/in-memory-compactor.js";
export { compactionSummaryText, InMemorySession, InMemorySessionStore } from "./host/in-memory-session.js";
export { type MaintenanceReason, MaintenanceScheduler } from "./host/maintenance.js";
export type { PreparedContext } from "./host/prepare-context.js";
export type {
  ModelStepFunction,
  ModelStepRequest,
  ModelStepResult,
  RunTurnParams,
  TurnResult,
} from "./host/run-turn.js";
export { endSubagent, type SubagentSpawnRequest, spawnSubagent } from "./host/subagent.js";
export {
  createPinoLogger,
  type LogFields,
  type Logger,
  type LogLevel,
  MemoryLogger,
  silentLogger,
} from "./logger.js";
export * from "./messages.js";
export {
  charEstimateTokenCounter,
  countMessagesTokens,
  estimateStringChars,
  messageChars,
} from "./tokens/estimate.js";
export type { TokenCounter } from "./tokens/token-counter.js";
