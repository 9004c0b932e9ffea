export { formatEngineSection } from "./commands/format-engine-section.js";
export * from "./commands/index.js";
export { PluginCommandRegistry } from "./commands/plugin-commands.js";
export * from "./context-report/index.js";
export {
  CLI_BACKEND_MAX_REPLY_CHARS,
  type CliBackend,
  type CliBackendConfig,
  type CliBackendReply,
  type CliBackendTurnParams,
  cliBackendDescriptor,
  DEFAULT_CLI_BACKEND_CAPABILITIES,
  DEFAULT_CLI_BACKEND_TIMEOUT_MS,
  runCliBackendTurn,
} from "./hosts/cli-backend.js";
export { CliBackendError, type CliBackendFailure } from "./hosts/cli-backend-error.js";
export { BUILT_IN_PROVIDERS, type BuiltInProviderName } from "./providers/built-in-providers.js";
export {
  type CallModelOptions,
  callModel,
  isOverflowMessage,
  type ModelRequest,
  NO_API_KEY,
  replyText,
} from "./providers/call-model.js";
export {
  isModelRef,
  MODEL_APIS,
  type ModelApi,
  type ModelConfigSource,
  type ModelCostConfig,
  type ModelDefinitionConfig,
  type ModelProviderConfig,
  type ModelSettings,
  readModelSettings,
} from "./providers/model-config.js";
export {
  DEFAULT_CONTEXT_WINDOW,
  DEFAULT_MAX_TOKENS,
  isLoopbackUrl,
  type ModelPurpose,
  type ResolvedModel,
  type ResolveModelOptions,
  resolveModel,
} from "./providers/resolve-model.js";
export { createSummaryComplete, type SummaryCompleteOptions } from "./providers/summary-complete.js";
export { generateDemoSession } from "./replay/demo-session.js";
export { writeDemoWorkspace } from "./replay/demo-workspace.js";
export { type RecordedTurn, recordedTurns } from "./replay/recorded-turns.js";
export {
  type ReplayCompaction,
  type ReplayOptions,
  type ReplayProgress,
  type ReplayResult,
  replaySession,
} from "./replay/replay-session.js";
export type * from "./runner/events.js";
export { type CallModel, createModelStep, type ModelStepOptions } from "./runner/model-step.js";
export { AgentRuntime, type AgentRuntimeOptions } from "./service/agent-runtime.js";
export type * from "./service/agent-service.js";
export {
  LocalAgentService,
  type LocalAgentServiceOptions,
  type OpenSession,
} from "./service/local-agent-service.js";
export {
  type ThreadHostDescriptorOptions,
  threadHostDescriptor,
} from "./threads/thread-host-descriptor.js";
export {
  createThreadProjectingCallModel,
  type PayloadHook,
  THREAD_PROJECTION_APIS,
  type ThreadBaseCallModel,
  type ThreadCallOptions,
  type ThreadProjectingCallModelOptions,
} from "./threads/thread-projection.js";
export { createThreadState, resetThreadState, type ThreadState } from "./threads/thread-state.js";
export {
  BUILTIN_TOOL_OWNER,
  type BuiltinToolsEnvironment,
  createBuiltinTools,
  registerBuiltinTools,
} from "./tools/builtin-tools.js";
export { createEditTool, type EditToolDetails, type EditToolOptions } from "./tools/edit-tool.js";
export {
  CommandFailedError,
  createExecTool,
  DEFAULT_EXEC_TIMEOUT_MS,
  DEFAULT_OUTPUT_CAP_CHARS,
  type ExecToolDetails,
  type ExecToolOptions,
} from "./tools/exec-tool.js";
export {
  type ExecuteToolCallOptions,
  executeToolCall,
  TOOL_CALL_ABORTED_TEXT,
  type ToolCallRequest,
} from "./tools/execute-tool-call.js";
export { fileAccessError, type ResolveToolPathOptions, resolveToolPath } from "./tools/paths.js";
export {
  createReadTool,
  DEFAULT_READ_MAX_CHARS,
  type ReadToolDetails,
  type ReadToolOptions,
} from "./tools/read-tool.js";
export { type AnyAgentTool, type ToolEnvironment, ToolRegistry } from "./tools/tool.js";
export { createWriteTool, type WriteToolDetails, type WriteToolOptions } from "./tools/write-tool.js";
