/**
 * What a Clew plugin imports. Engines written against OpenClaw's `openclaw/plugin-sdk/core` and
 * `openclaw/plugin-sdk/context-engine` find the same names here.
 */
import {
  type CompactParams,
  type CompactResult,
  type ContextEngine,
  compactWithSafetyTimeout,
  DEFAULT_COMPACTION_TIMEOUT_MS,
} from "@clew/core";

export type {
  AfterTurnParams,
  AgentMessage,
  AssembleParams,
  AssembleResult,
  BootstrapParams,
  BootstrapResult,
  CompactParams,
  CompactResult,
  ContextEngine,
  ContextEngineFactory,
  ContextEngineFactoryContext,
  ContextEngineHostCapability,
  ContextEngineHostParam,
  ContextEngineHostRequirements,
  ContextEngineInfo,
  ContextEngineMaintenanceResult,
  ContextEngineOperation,
  ContextEngineProjection,
  ContextEngineRuntimeContext,
  ContextEngineRuntimeSettings,
  ContextEngineSessionTarget,
  IngestBatchParams,
  IngestBatchResult,
  IngestParams,
  IngestResult,
  LlmCompleteParams,
  LlmCompleteResult,
  MaintainParams,
  SubagentEndedParams,
  SubagentEndReason,
  SubagentSpawnParams,
  SubagentSpawnPreparation,
  TranscriptRewriteReplacement,
  TranscriptRewriteRequest,
  TranscriptRewriteResult,
} from "@clew/core";
export {
  buildContextEngineRuntimeSettings,
  delegateCompactionToRuntime,
  evaluateContextEngineHostSupport,
} from "@clew/core";

/**
 * `compact` under the host's watchdog, for plugins that compact other engines (OpenClaw's
 * `compactContextEngineWithSafetyTimeout`). A timeout answers `{ ok: false, compacted: false }`.
 */
export function compactContextEngineWithSafetyTimeout(
  engine: ContextEngine,
  params: CompactParams,
  timeoutMs: number = DEFAULT_COMPACTION_TIMEOUT_MS,
  abortSignal?: AbortSignal,
): Promise<CompactResult> {
  return compactWithSafetyTimeout(
    engine,
    params,
    abortSignal === undefined ? { timeoutMs } : { timeoutMs, signal: abortSignal },
  );
}
/** OpenClaw's `agent-harness-runtime` name for the compaction watchdog (core's implementation). */
export { compactWithSafetyTimeout } from "@clew/core";
export {
  buildMemoryPromptLines,
  buildMemorySystemPromptAddition,
  type MemoryCitationsMode,
  type MemoryPromptContext,
  MemoryPromptRegistry,
  type MemoryPromptSectionBuilder,
  type MemoryPromptSectionParams,
  memoryPromptRegistry,
  prepareMemorySystemPromptAddition,
  type RegisterMemoryPromptSectionOptions,
  registerMemoryPromptSection,
  runWithMemoryPromptContext,
  unregisterMemoryPromptSection,
} from "./memory.js";
export type {
  PluginApi,
  PluginCommand,
  PluginCommandContext,
  PluginRegister,
  PluginTool,
  PluginToolContext,
  PluginToolFactory,
  PluginToolOptions,
} from "./plugin-api.js";
