import type { ContextEngineLifecycleMethod } from "./types.js";

export type QuarantineOperation =
  | ContextEngineLifecycleMethod
  | "resolve"
  | "factory"
  | "contract-validation";

export interface QuarantineRecord {
  engineId: string;
  owner?: string;
  operation: QuarantineOperation;
  reason: string;
  /** Epoch milliseconds. */
  failedAt: number;
}

/**
 * Which engines failed in this process, and how. The first failure wins so the record points at
 * the root cause, not at the cascade that followed it. Lives as long as its registry: a new
 * runtime registration of the id, or an explicit clear, lifts the quarantine.
 */
export class QuarantineLedger {
  private readonly records = new Map<string, QuarantineRecord>();

  /** Records the failure unless the engine is already quarantined; returns whether it was new. */
  record(record: QuarantineRecord): boolean {
    if (this.records.has(record.engineId)) return false;
    this.records.set(record.engineId, record);
    return true;
  }

  get(engineId: string): QuarantineRecord | undefined {
    return this.records.get(engineId);
  }

  has(engineId: string): boolean {
    return this.records.has(engineId);
  }

  clear(engineId?: string): void {
    if (engineId === undefined) this.records.clear();
    else this.records.delete(engineId);
  }

  list(): QuarantineRecord[] {
    return [...this.records.values()];
  }
}

/** The one log line a quarantine produces. */
export function formatQuarantineLogLine(record: QuarantineRecord, fallbackId: string): string {
  const owner = record.owner === undefined ? "" : ` owner=${record.owner}`;
  return (
    `[context-engine] Context engine "${record.engineId}"${owner} failed during ${record.operation}: ` +
    `${record.reason}; quarantining it for this process and falling back to default engine "${fallbackId}".`
  );
}
