/**
 * At most `limit` tasks at a time; the rest wait in arrival order. One limiter per engine bounds
 * its summarizer calls in flight, whether preparation or compaction makes them.
 */
import { abortReason } from "@clew/core";

interface Waiter {
  start: () => void;
}

export class ConcurrencyLimiter {
  private active = 0;
  private readonly waiting: Waiter[] = [];

  /** @param limit at least 1. */
  constructor(readonly limit: number) {}

  /** Tasks running now. */
  get inFlight(): number {
    return this.active;
  }

  /**
   * Runs `task` once a slot is free and frees the slot when it settles. A signal that fires while
   * the task waits rejects with its reason and the task never runs.
   */
  async run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    await this.acquire(signal);
    try {
      return await task();
    } finally {
      this.release();
    }
  }

  private acquire(signal: AbortSignal | undefined): Promise<void> {
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    if (this.active < this.limit) {
      this.active += 1;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        const index = this.waiting.indexOf(waiter);
        if (index >= 0) this.waiting.splice(index, 1);
        reject(abortReason(signal as AbortSignal));
      };
      const waiter: Waiter = {
        start: () => {
          signal?.removeEventListener("abort", onAbort);
          this.active += 1;
          resolve();
        },
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.waiting.push(waiter);
    });
  }

  private release(): void {
    this.active -= 1;
    this.waiting.shift()?.start();
  }
}
