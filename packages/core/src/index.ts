export { type CompactionPlan, type CompactionPlanResult, planCompaction } from "./compaction/cut-point.js";
export {
  createRuntimeCompaction,
  DEFAULT_SUMMARY_MODEL_TIMEOUT_MS,
  type RuntimeCompactionOptions,
} from "./compaction/runtime-compaction.js";
export { createSummaryRuntimeCompactor } from "./compaction/runtime-compactor.js";
export {
  buildSessionContext,
  type CompactionSummaryMessage,
  compactionSummaryText,
  type SessionContext,
} from "./compaction/session-context.js";
export {
  compactTranscript,
  DEFAULT_KEEP_RECENT_TOKENS,
  type PreserveIdentifiers,
  type SummarizeSpan,
  type SummaryCompactionOptions,
  type SummaryCompactionRequest,
} from "./compaction/summary-compaction.js";
export { clewConfigSchema } from "./config/config-schema.js";
export { type LoadedConfig, loadConfig, parseConfig } from "./config/load-config.js";
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
  type BuildRunReportInput,
  buildRunReport,
  estimateRunReport,
  historyKindOf,
  type RunReportContext,
  type RunReportIdentity,
} from "./context-report/build-run-report.js";
export type { ContextRunReport, HistoryBreakdown } from "./context-report/run-report.js";
export { contextRunReportSchema } from "./context-report/run-report-schema.js";
export {
  ClewError,
  type ClewErrorCategory,
  ConfigError,
  ContextEngineContractError,
  ContextEngineHostUnsupportedError,
  ContextEngineNotRegisteredError,
  ContextOverflowError,
  describeError,
  EmptySummaryError,
  GatewayConfigError,
  InvalidAgentIdError,
  InvalidOptionError,
  InvalidSessionIdError,
  isClewError,
  ModelCallError,
  ModelConfigError,
  SessionIndexError,
  SessionLockedError,
  SessionTargetConflictError,
  SubagentPreparationError,
  TranscriptReadError,
  TranscriptWriteError,
  type TranscriptWriteFailure,
  UnknownSessionError,
} from "./errors.js";
export { formatBytes } from "./format-bytes.js";
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
export { InMemorySession, InMemorySessionStore } from "./host/in-memory-session.js";
export { type MaintenanceReason, MaintenanceScheduler } from "./host/maintenance.js";
export type { PreparedContext } from "./host/prepare-context.js";
export {
  DEFAULT_MAX_STEPS,
  type ModelStepFunction,
  type ModelStepRequest,
  type ModelStepResult,
  type RunTurnParams,
  type TurnResult,
} from "./host/run-turn.js";
export { bootstrapSession, maintainSession } from "./host/session-maintenance.js";
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
export { agentDir, agentSessionsDir, configPath, resolveClewHome } from "./paths.js";
export * from "./pipeline/index.js";
export {
  type BuiltSystemPrompt,
  buildSystemPrompt,
  PROMPT_SECTION_NAMES,
  PROMPT_SECTION_SEPARATOR,
  type SystemPromptInput,
  type SystemPromptSection,
  withEngineAddition,
} from "./prompt/build-system-prompt.js";
export {
  isHousekeepingMessage,
  MEMORY_FLUSH_PROMPT_START,
  SILENT_REPLY_TOKEN,
} from "./prompt/housekeeping.js";
export {
  defaultSkillsDirs,
  type LoadedSkills,
  loadSkills,
  SKILL_DESCRIPTION_MAX_CHARS,
  SKILL_FILE_NAME,
  SKILL_NAME_MAX_CHARS,
  type SkillEntry,
  type SkillProblem,
  skillFromText,
} from "./prompt/load-skills.js";
export {
  type PreparedSystemPrompt,
  type PrepareSystemPromptOptions,
  prepareSystemPrompt,
} from "./prompt/prepare-system-prompt.js";
export {
  DEFAULT_IDENTITY_LINE,
  describeRuntimeHost,
  escapeXml,
  formatLocalTime,
  isValidTimeZone,
  PROJECT_CONTEXT_HEADING,
  type PromptTool,
  type RuntimeInfo,
  renderSkillEntry,
  toolSummary,
} from "./prompt/prompt-sections.js";
export {
  DEFAULT_BOOTSTRAP_MAX_CHARS,
  DEFAULT_BOOTSTRAP_TOTAL_MAX_CHARS,
  DEFAULT_TRUNCATION_WARNING_MODE,
  type PromptSettings,
  resolvePromptSettings,
} from "./prompt/prompt-settings.js";
export { type FrontMatterParse, parseSkillFrontMatter } from "./prompt/skill-front-matter.js";
export {
  cutHeadAndTail,
  type InjectedWorkspaceFile,
  MIN_FILE_BUDGET_CHARS,
  TRUNCATION_HEAD_RATIO,
  TRUNCATION_TAIL_RATIO,
  type TruncatedWorkspaceFiles,
  type TruncationCause,
  truncateWorkspaceFiles,
  truncationMarker,
  type WorkspaceFileLimits,
  type WorkspaceFileStatus,
  type WorkspaceFilesAnalysis,
} from "./prompt/truncate-workspace-files.js";
export {
  decideTruncationWarning,
  renderTruncationWarning,
  TRUNCATION_WARNING_MODES,
  type TruncationWarningDecision,
  type TruncationWarningMode,
  type TruncationWarningState,
  truncationSignature,
} from "./prompt/truncation-warning.js";
export {
  BOOTSTRAP_FILE_NAME,
  createWorkspaceFileReader,
  type LoadWorkspaceFilesOptions,
  loadWorkspaceFiles,
  MEMORY_FILE_NAME,
  WORKSPACE_FILE_MAX_BYTES,
  WORKSPACE_FILE_NAMES,
  type WorkspaceFile,
  type WorkspaceFileReader,
} from "./prompt/workspace-files.js";
export * from "./pruning/index.js";
export { TranscriptHostSession } from "./sessions/transcript-host-session.js";
export { createExtractiveSummarizer, EXTRACTIVE_SUMMARIZER_ID } from "./summarizer/extractive-summarizer.js";
export {
  type AttributedSummary,
  createFallbackSummarizer,
  type FallbackSummarizer,
  type FallbackSummarizerOptions,
  summarizeWithFallback,
} from "./summarizer/fallback-summarizer.js";
export { extractIdentifiers, extractIdentifiersFromMessages } from "./summarizer/identifiers.js";
export {
  buildSummaryPrompt,
  createModelSummarizer,
  type ModelSummarizerOptions,
  SUMMARY_SYSTEM_PROMPT,
  type SummaryCompleteFunction,
  type SummaryCompletion,
  type SummaryCompletionRequest,
  sanitizeUntrustedText,
  UNTRUSTED_TEXT_LIMIT,
} from "./summarizer/model-summarizer.js";
export { SERIALIZED_TEXT_LIMIT, serializeConversation, truncateForSummary } from "./summarizer/serialize.js";
export type { SummarizeInput, Summarizer, SummarySection, SummaryUsage } from "./summarizer/summarizer.js";
export { SUMMARY_SECTIONS } from "./summarizer/summarizer.js";
export {
  containsVerbatim,
  ensureIdentifiers,
  identifierBullets,
  MAX_SUMMARY_IDENTIFIERS,
  type ParsedSummary,
  parseSummary,
  renderSection,
  renderSummary,
  type SummaryItems,
} from "./summarizer/summary-format.js";
export { withCountFallback, withSafetyFactor, withTokenCache } from "./tokens/cached-counter.js";
export {
  type ContextWindowInputs,
  type ContextWindowSource,
  catalogContextWindow,
  DEFAULT_CONTEXT_WINDOW_TOKENS,
  type ResolvedContextWindow,
  resolveContextWindow,
} from "./tokens/context-window.js";
export { createTokenCounter, type TokenCounterKind } from "./tokens/create-token-counter.js";
export {
  charEstimateTokenCounter,
  countMessagesTokens,
  estimateStringChars,
  messageChars,
} from "./tokens/estimate.js";
export { modelVisibleParts, readableTextParts, type VisiblePart } from "./tokens/message-text.js";
export {
  createO200kTokenCounter,
  loadO200kTokenCounter,
  O200K_COUNTER_ID,
  O200K_IMAGE_TOKENS,
} from "./tokens/o200k-counter.js";
export type { TokenCounter } from "./tokens/token-counter.js";
export * from "./transcript/entries.js";
export {
  DETECTION_LINE_LIMIT,
  detectTranscriptFormat,
  type TranscriptFormat,
  type TranscriptFormatDetection,
} from "./transcript/import/detect-format.js";
export {
  activeBranch,
  exportTranscript,
  isTranscriptExportFormat,
  type OpenAIChatMessage,
  type OpenAIContentPart,
  TRANSCRIPT_EXPORT_FORMATS,
  type TranscriptExportFormat,
} from "./transcript/import/export-transcript.js";
export type { ImportIssue } from "./transcript/import/import-log.js";
export {
  type ImportedTranscript,
  type ImportTranscriptOptions,
  importTranscript,
  type TranscriptImportStats,
} from "./transcript/import/import-transcript.js";
export {
  JsonlTranscriptStore,
  type JsonlTranscriptStoreOptions,
  type TranscriptFileOperations,
} from "./transcript/jsonl/jsonl-transcript-store.js";
export {
  acquireSessionLock,
  isProcessAlive,
  type LockRecord,
  lockPathOf,
  parseLockRecord,
  SessionLock,
  type SessionLockOptions,
} from "./transcript/jsonl/session-lock.js";
export { type ParentChain, parentChain } from "./transcript/parent-chain.js";
export {
  SessionIndex,
  type SessionIndexEntry,
  type SessionIndexOptions,
  type SessionIndexPatch,
  type SessionIndexUpdate,
} from "./transcript/session-index.js";
export type {
  CreateTranscriptOptions,
  FsyncPolicy,
  Transcript,
  TranscriptInfo,
  TranscriptLoadIssue,
  TranscriptStore,
} from "./transcript/transcript-store.js";
