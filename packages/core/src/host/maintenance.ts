import { describeError } from "../errors.js";
import type { Logger } from "../logger.js";

export type MaintenanceReason = "bootstrap" | "turn" | "compaction";

/** One maintenance pass, given the signal that cancels it. Errors are logged, never thrown. */
export type MaintenanceTask = (signal: AbortSignal) => Promise<void>;

/**
 * Runs engine maintenance inline (foreground) or after the reply (background). Background work is
 * coalesced per session: while a pass runs, later requests collapse into one rerun with the newest
 * task, so a burst of turns never queues a burst of passes. `close()` aborts what is running and
 * waits for it, so a shutdown never leaves a pass writing behind it.
 */
export class MaintenanceScheduler {
  private readonly running = new Map<string, Promise<void>>();
  private readonly rerun = new Map<string, MaintenanceTask>();
  private readonly controller = new AbortController();

  constructor(private readonly logger: Logger) {}

  /** Runs or schedules `task`; false when the scheduler is closed and nothing will run. */
  async run(sessionKey: string, mode: "foreground" | "background", task: MaintenanceTask): Promise<boolean> {
    if (this.controller.signal.aborted) return false;
    if (mode === "foreground") {
      await this.guard(task);
      return true;
    }
    if (this.running.has(sessionKey)) this.rerun.set(sessionKey, task);
    else this.start(sessionKey, task);
    return true;
  }

  /** Resolves when no background pass is running or queued. */
  async whenIdle(): Promise<void> {
    while (this.running.size > 0) await Promise.all(this.running.values());
  }

  get pendingCount(): number {
    return this.running.size + this.rerun.size;
  }

  async close(): Promise<void> {
    this.controller.abort(
      Object.assign(new Error("context engine host is shutting down"), { name: "AbortError" }),
    );
    this.rerun.clear();
    await this.whenIdle();
  }

  private start(sessionKey: string, task: MaintenanceTask): void {
    const pass = (async () => {
      let next: MaintenanceTask | undefined = task;
      while (next !== undefined && !this.controller.signal.aborted) {
        await this.guard(next);
        next = this.rerun.get(sessionKey);
        this.rerun.delete(sessionKey);
      }
    })().finally(() => this.running.delete(sessionKey));
    this.running.set(sessionKey, pass);
  }

  private async guard(task: MaintenanceTask): Promise<void> {
    try {
      await task(this.controller.signal);
    } catch (error) {
      if (this.controller.signal.aborted) return;
      this.logger.warn(`context engine maintain failed: ${describeError(error)}`);
    }
  }
}
