import { GuardedContextEngine } from "../context-engine/guarded-engine.js";
import {
  type ContextEngineHostDescriptor,
  type ContextEngineHostSupport,
  evaluateContextEngineHostSupport,
} from "../context-engine/host-requirements.js";
import type { QuarantineRecord } from "../context-engine/quarantine.js";
import { type ContextEngineRegistry, DEFAULT_CONTEXT_ENGINE_ID } from "../context-engine/registry.js";
import type { ContextEngineFallbackReason, ResolvedContextEngine } from "../context-engine/resolve.js";
import type { ContextEngineOperation } from "../context-engine/types.js";

export interface ContextEngineStatus {
  /** The slot value after normalisation; undefined when the slot selects the default. */
  configuredId: string | undefined;
  /** The registered id in use now. */
  effectiveId: string;
  /** Why `effectiveId` is not the configured engine, when it is not. */
  fallbackReason?: ContextEngineFallbackReason;
  /** The quarantine record behind a fallback, when there is one. */
  quarantine?: QuarantineRecord;
  engine: {
    id: string;
    name: string;
    version?: string;
    ownsCompaction: boolean;
    turnMaintenanceMode: string;
  };
  host: { id: string; label: string; capabilities: string[] };
  hostSupport: Record<ContextEngineOperation, ContextEngineHostSupport>;
  /** Every engine quarantined in this process. */
  quarantined: QuarantineRecord[];
}

const OPERATIONS: ContextEngineOperation[] = ["agent-run", "manual-compact", "subagent-spawn"];

export function describeContextEngineStatus(
  resolved: ResolvedContextEngine,
  registry: ContextEngineRegistry,
  host: ContextEngineHostDescriptor,
): ContextEngineStatus {
  const engine = resolved.engine;
  const info = engine.info;
  const guarded = engine instanceof GuardedContextEngine ? engine : undefined;
  const downgraded = guarded?.isQuarantined === true;
  const status: ContextEngineStatus = {
    configuredId: resolved.selection.configuredId,
    effectiveId: downgraded ? DEFAULT_CONTEXT_ENGINE_ID : resolved.effectiveId,
    engine: {
      id: info.id,
      name: info.name,
      ownsCompaction: info.ownsCompaction === true,
      turnMaintenanceMode: info.turnMaintenanceMode ?? "foreground",
    },
    host: { id: host.id, label: host.label, capabilities: [...host.capabilities] },
    hostSupport: Object.fromEntries(
      OPERATIONS.map((operation) => [operation, evaluateContextEngineHostSupport(info, operation, host)]),
    ) as Record<ContextEngineOperation, ContextEngineHostSupport>,
    quarantined: registry.quarantine.list(),
  };
  if (info.version !== undefined) status.engine.version = info.version;
  const fallbackReason = downgraded ? "quarantined" : resolved.fallbackReason;
  if (fallbackReason !== undefined) status.fallbackReason = fallbackReason;
  const configured = resolved.selection.configuredId;
  const record = configured === undefined ? undefined : registry.quarantine.get(configured);
  if (record !== undefined) status.quarantine = record;
  return status;
}

/** One line for `/status`: configured and effective engine, and why they differ. */
export function formatContextEngineStatusLine(status: ContextEngineStatus): string {
  const configured = status.configuredId ?? DEFAULT_CONTEXT_ENGINE_ID;
  if (configured === status.effectiveId) return `Context engine: ${status.effectiveId}`;
  const why = status.quarantine
    ? `quarantined during ${status.quarantine.operation}: ${status.quarantine.reason}`
    : (status.fallbackReason ?? "fallback");
  return `Context engine: ${status.effectiveId} (configured: ${configured}; ${why})`;
}
