/**
 * Clew's default memory plugin: durable notes in the workspace's `MEMORY.md` and `memory/*.md`,
 * `memory_search` (BM25 over paragraphs) and `memory_get`, the memory prompt section, and the
 * pre-compaction memory flush helpers.
 */
export { BM25_B, BM25_K1, Bm25Index, type Bm25Match, tokenize } from "./bm25.js";
export { listMemoryFiles, MAX_NOTE_BYTES, MEMORY_DIR_NAME, resolveMemoryPath } from "./memory-files.js";
export {
  DEFAULT_MEMORY_FLUSH_RESERVE_FLOOR,
  DEFAULT_MEMORY_FLUSH_SOFT_THRESHOLD,
  isSilentFlushReply,
  MEMORY_FLUSH_SILENT_TOKEN,
  type MemoryFlushGateInput,
  type MemoryFlushPrompt,
  memoryFlushPrompt,
  memoryFlushThreshold,
  shouldRunMemoryFlush,
} from "./memory-flush.js";
export {
  createMemoryGetTool,
  createMemorySearchTool,
  createMemoryTools,
  MEMORY_GET_MAX_CHARS,
  MEMORY_GET_TOOL,
  MEMORY_SEARCH_TOOL,
  type MemoryGetDetails,
  type MemoryGetParameters,
  type MemorySearchDetails,
  type MemorySearchParameters,
  type MemoryToolOptions,
} from "./memory-tools.js";
export { type NoteParagraph, splitParagraphs } from "./paragraphs.js";
export { default as registerMemoryCore, MEMORY_CORE_PLUGIN_ID, memoryCoreWorkspace } from "./plugin.js";
export { buildMemoryPromptSection } from "./prompt-section.js";
export {
  DEFAULT_MAX_RESULTS,
  MAX_RESULTS_LIMIT,
  type MemorySearchHit,
  type MemorySearchResult,
  type SearchMemoryOptions,
  SNIPPET_MAX_CHARS,
  searchMemory,
} from "./search-memory.js";
