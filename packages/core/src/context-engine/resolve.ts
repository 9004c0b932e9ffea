import type { ClewConfig } from "../config/types.js";
import { ContextEngineNotRegisteredError, describeError } from "../errors.js";
import type { Logger } from "../logger.js";
import { isAbortForSignal } from "./abort.js";
import { assertContextEngineContract } from "./contract-validation.js";
import { GuardedContextEngine } from "./guarded-engine.js";
import { formatQuarantineLogLine, type QuarantineOperation, type QuarantineRecord } from "./quarantine.js";
import { type ContextEngineRegistry, DEFAULT_CONTEXT_ENGINE_ID } from "./registry.js";
import { type ContextEngineSelection, selectContextEngine } from "./selection.js";
import type { ContextEngine, ContextEngineFactoryContext } from "./types.js";

export interface ResolveContextEngineOptions {
  config?: ClewConfig;
  agentDir?: string;
  workspaceDir?: string;
  logger: Logger;
  now?: () => number;
  /** The caller's cancellation: a factory that fails because of it propagates, unquarantined. */
  signal?: AbortSignal;
}

export type ContextEngineFallbackReason =
  | "plugin-disabled"
  | "quarantined"
  | "not-registered"
  | "discovery-only"
  | "factory-failed"
  | "contract-invalid";

export interface ResolvedContextEngine {
  /** Call everything through this. For a plugin engine it is the guarded wrapper. */
  engine: ContextEngine;
  /** The registered id the run actually uses (`legacy` after any fallback). */
  effectiveId: string;
  selection: ContextEngineSelection;
  /** Why the configured engine is not the one in use, when it is not. */
  fallbackReason?: ContextEngineFallbackReason;
  /** True when `engine` is core's own legacy engine, resolved by registry identity. */
  trustedDefault: boolean;
}

/**
 * Resolves the engine config selects, never failing a run because of a plugin: a missing,
 * throwing or invalid plugin engine is quarantined (one log line) and `legacy` is used instead.
 * Only a broken default engine, or a caller cancellation, rejects.
 */
export async function resolveContextEngine(
  registry: ContextEngineRegistry,
  options: ResolveContextEngineOptions,
): Promise<ResolvedContextEngine> {
  const selection = selectContextEngine(options.config, registry);
  const factoryContext: ContextEngineFactoryContext = { config: options.config };
  if (options.agentDir !== undefined) factoryContext.agentDir = options.agentDir;
  if (options.workspaceDir !== undefined) factoryContext.workspaceDir = options.workspaceDir;
  const useDefault = async (fallbackReason?: ContextEngineFallbackReason): Promise<ResolvedContextEngine> => {
    const engine = await createDefaultContextEngine(registry, factoryContext);
    const resolved: ResolvedContextEngine = {
      engine,
      effectiveId: DEFAULT_CONTEXT_ENGINE_ID,
      selection,
      trustedDefault: true,
    };
    if (fallbackReason !== undefined) resolved.fallbackReason = fallbackReason;
    return resolved;
  };
  if (selection.selectedId === DEFAULT_CONTEXT_ENGINE_ID) return useDefault(selection.reason);

  const id = selection.selectedId;
  const now = options.now ?? Date.now;
  const quarantine = (operation: QuarantineOperation, reason: string, owner?: string): void => {
    const record: QuarantineRecord = { engineId: id, operation, reason, failedAt: now() };
    if (owner !== undefined) record.owner = owner;
    if (registry.quarantine.record(record))
      options.logger.error(formatQuarantineLogLine(record, DEFAULT_CONTEXT_ENGINE_ID));
  };
  if (registry.quarantine.has(id)) return useDefault("quarantined");
  const registration = registry.get(id);
  if (registration === undefined) {
    quarantine("resolve", "not registered");
    return useDefault("not-registered");
  }
  if (registration.lifecycle === "readOnlyDiscovery") {
    options.logger.warn(
      `[context-engine] Context engine "${id}" owner=${registration.owner} is registered for read-only discovery only; ` +
        `falling back to default engine "${DEFAULT_CONTEXT_ENGINE_ID}" without quarantine until runtime activation registers it.`,
    );
    return useDefault("discovery-only");
  }
  let candidate: unknown;
  try {
    candidate = await registration.factory(factoryContext);
  } catch (error) {
    if (isAbortForSignal(error, options.signal)) throw error;
    quarantine("factory", describeError(error), registration.owner);
    return useDefault("factory-failed");
  }
  let target: ContextEngine;
  try {
    target = assertContextEngineContract(id, candidate);
  } catch (error) {
    quarantine("contract-validation", describeError(error), registration.owner);
    return useDefault("contract-invalid");
  }
  const engine = new GuardedContextEngine({
    registeredId: id,
    owner: registration.owner,
    target,
    quarantine: registry.quarantine,
    createFallback: () => createDefaultContextEngine(registry, factoryContext),
    logger: options.logger,
    now,
  });
  return { engine, effectiveId: id, selection, trustedDefault: false };
}

/** The default engine, unwrapped. Its failures are Clew's bugs, so they propagate. */
export async function createDefaultContextEngine(
  registry: ContextEngineRegistry,
  context: ContextEngineFactoryContext,
): Promise<ContextEngine> {
  const registration = registry.get(DEFAULT_CONTEXT_ENGINE_ID);
  if (registration === undefined)
    throw new ContextEngineNotRegisteredError(DEFAULT_CONTEXT_ENGINE_ID, registry.ids());
  return assertContextEngineContract(DEFAULT_CONTEXT_ENGINE_ID, await registration.factory(context));
}
