export {
  type ApplyDirectivesOptions,
  type ApplyDirectivesResult,
  applyDirectives,
  applyUsageCommand,
  formatCurrentSetting,
  type SettingDefaults,
} from "./apply-directives.js";
export {
  type ChatCommand,
  type ChatCommandName,
  type ChatMessageInput,
  CONTEXT_MODES,
  type ContextMode,
  type Directive,
  type InlineShortcut,
  type InvalidDirective,
  type ParseChatInputOptions,
  type ParsedChatInput,
  type ValidDirective,
} from "./chat-input.js";
export {
  type CompactionContextFigures,
  type CompactionResultSummary,
  describeCompactionSkip,
  formatCompactionResult,
  summarizeCompactResult,
} from "./format-compaction-result.js";
export { formatHelp } from "./format-help.js";
export {
  formatCompactTokens,
  formatContextUsage,
  formatDuration,
  formatPercent,
  formatTimeAgo,
  formatUsd,
} from "./format-numbers.js";
export { formatStatusCard, type StatusCardData } from "./format-status-card.js";
export { formatUsageFooter, type UsageFooterContext, type UsageTotals } from "./format-usage-footer.js";
export { parseChatInput } from "./parse-chat-input.js";
export {
  nextUsageMode,
  normalizeReasoningLevel,
  normalizeThinkingLevel,
  normalizeUsageMode,
  normalizeVerboseLevel,
  REASONING_LEVELS,
  type ReasoningLevel,
  type SessionSettings,
  THINKING_LEVELS,
  type ThinkingLevel,
  USAGE_MODES,
  type UsageMode,
  VERBOSE_LEVELS,
  type VerboseLevel,
} from "./settings.js";
