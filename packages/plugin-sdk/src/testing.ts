/**
 * Test helpers for engine authors: the shared contract suite and deterministic fixtures.
 * Import from `@clew/plugin-sdk/testing` in a Vitest test file.
 */
export {
  type ContextEngineContractSuiteOptions,
  type ContractCaseId,
  runContextEngineContractSuite,
} from "./testing/contract-suite.js";
export {
  assistantText,
  assistantToolCall,
  codingConversation,
  deepFreeze,
  orphanToolResults,
  toolResult,
  userText,
} from "./testing/fixtures.js";
