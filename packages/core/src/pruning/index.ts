/** In-memory session pruning of old tool results. */
export {
  isPruningDue,
  type PruneContextOptions,
  type PruneContextResult,
  pruneContext,
} from "./prune-context.js";
export {
  type ContextPruningConfig,
  type ContextPruningMode,
  type ContextPruningSettings,
  createToolPrunablePredicate,
  DEFAULT_CONTEXT_PRUNING_SETTINGS,
  DEFAULT_PRUNING_TTL_MS,
  HARD_CLEAR_PLACEHOLDER,
  parseDurationMs,
  resolveContextPruningSettings,
} from "./settings.js";
