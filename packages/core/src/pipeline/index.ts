/** The history pipeline: what stored messages become before engines and providers see them. */
export {
  type BashExecutionMessage,
  bashExecutionText,
  convertCustomMessages,
  dropThinkingBlocks,
  KNOWN_CUSTOM_ROLES,
} from "./custom-messages.js";
export { limitHistoryTurns } from "./limit-history.js";
export {
  ensureUserFirst,
  type MergeTurnsOptions,
  mergeConsecutiveTurns,
  SESSION_BOOTSTRAP_TEXT,
} from "./merge-turns.js";
export { type PrepareHistoryOptions, prepareHistory } from "./prepare-history.js";
export {
  isUnfinished,
  type RepairToolPairingOptions,
  repairToolResultPairing,
  repairToolResultPairingWithReport,
  SYNTHETIC_TOOL_RESULT_TEXT,
  syntheticToolResult,
  type ToolPairingRepair,
  toolCallsOf,
} from "./repair-tool-pairing.js";
export {
  isValidToolCallId,
  STRICT_TOOL_CALL_ID,
  STRICT9_TOOL_CALL_ID,
  sanitizeToolCallIds,
} from "./tool-call-ids.js";
export {
  resolveTranscriptPolicy,
  type ToolCallIdMode,
  type TranscriptPolicy,
  type TranscriptPolicyTarget,
} from "./transcript-policy.js";
