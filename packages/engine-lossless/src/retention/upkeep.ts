/**
 * Bounded growth without losing anything: upkeep deletes flight-recorder records beyond the
 * retention policy and returns free pages to the file system in small steps. It never deletes a
 * message or a summary (only `deleteSession`, on an explicit user command, does). Background
 * maintenance runs it at most once per `upkeepIntervalHours`, across every process sharing the
 * store (the last run's time is kept in the store); it never runs on the request path.
 */
import { describeError, type Logger } from "@clew/core";
import type { LosslessStore, ReclaimMode, RecordRetention } from "../store/store.js";

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

export interface RetentionSettings {
  compactionRecordsKept: number;
  assemblyRecordsKept: number;
  /** 0 keeps records by count only. */
  recordRetentionDays: number;
}

export interface UpkeepSettings extends RetentionSettings {
  /** 0 turns periodic upkeep off. */
  upkeepIntervalHours: number;
}

export interface UpkeepResult {
  passesDeleted: number;
  assembliesDeleted: number;
  bytesBefore: number;
  bytesAfter: number;
  /** `bytesBefore − bytesAfter`, never below 0. */
  bytesFreed: number;
}

/** The store's retention request for `settings` at `now` (epoch milliseconds). */
export function recordRetention(settings: RetentionSettings, now: number): RecordRetention {
  return {
    passesPerSession: settings.compactionRecordsKept,
    assembliesPerSession: settings.assemblyRecordsKept,
    ...(settings.recordRetentionDays > 0 ? { olderThan: now - settings.recordRetentionDays * DAY_MS } : {}),
  };
}

/**
 * Retention, then reclaiming with `mode`. Throws the store's error (`LosslessStoreError`); for an
 * explicit command, where the user should see it.
 */
export async function runUpkeep(
  store: LosslessStore,
  settings: RetentionSettings,
  now: number,
  mode: ReclaimMode,
): Promise<UpkeepResult> {
  const retention = await store.pruneRecords(recordRetention(settings, now));
  const reclaimed = await store.reclaimSpace(mode);
  await store.setLastUpkeepAt(now);
  return {
    ...retention,
    bytesBefore: reclaimed.bytesBefore,
    bytesAfter: reclaimed.bytesAfter,
    bytesFreed: Math.max(0, reclaimed.bytesBefore - reclaimed.bytesAfter),
  };
}

/** Periodic upkeep for background maintenance. */
export class PeriodicUpkeep {
  /** Checked before the store, so most calls cost nothing. */
  private notBefore = 0;
  private running: Promise<UpkeepResult | undefined> | undefined;
  /** The engine is closing: a run the closing store cuts short is not a failure worth a warning. */
  private stopped = false;

  constructor(
    private readonly store: LosslessStore,
    private readonly settings: UpkeepSettings,
    private readonly now: () => number,
    private readonly logger: Logger,
  ) {}

  /** Called as the engine closes its store: upkeep then runs no more, and one cut short is quiet. */
  stop(): void {
    this.stopped = true;
  }

  /**
   * Runs upkeep (incremental reclaiming) when the interval has passed since the last run of any
   * process; undefined when it was not due, was stopped or failed (failures are logged). Never throws.
   */
  runIfDue(): Promise<UpkeepResult | undefined> {
    if (this.stopped) return Promise.resolve(undefined);
    this.running ??= this.attempt().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async attempt(): Promise<UpkeepResult | undefined> {
    const interval = this.settings.upkeepIntervalHours * HOUR_MS;
    const now = this.now();
    if (interval <= 0 || now < this.notBefore) return undefined;
    try {
      const last = await this.store.lastUpkeepAt();
      if (last !== undefined && now - last < interval) {
        this.notBefore = last + interval;
        return undefined;
      }
      this.notBefore = now + interval;
      const result = await runUpkeep(this.store, this.settings, now, "incremental");
      this.logger.info("lossless: upkeep ran", { ...result });
      return result;
    } catch (error) {
      this.notBefore = now + interval;
      if (this.stopped)
        this.logger.debug("lossless: upkeep stopped by close", { error: describeError(error) });
      else this.logger.warn("lossless: upkeep failed", { error: describeError(error) });
      return undefined;
    }
  }
}
