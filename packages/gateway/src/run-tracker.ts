/**
 * Runs in flight, so shutdown can wait for them and then abort the rest. Every run started by the
 * gateway goes through `track`; its AbortController is the one whose signal `sendMessage` gets.
 */

interface TrackedRun {
  controller: AbortController;
  settled: Promise<void>;
}

export class RunTracker {
  private readonly runs = new Set<TrackedRun>();

  get size(): number {
    return this.runs.size;
  }

  /**
   * Runs `work` with a fresh controller. The run leaves the tracker when `work` settles; its
   * rejection is passed on to the caller through `result`, not swallowed. Callers stop starting
   * runs once shutdown begins, so `waitForIdle` sees every run.
   */
  track<T>(work: (signal: AbortSignal) => Promise<T>): { controller: AbortController; result: Promise<T> } {
    const controller = new AbortController();
    const result = Promise.resolve().then(() => work(controller.signal));
    const run: TrackedRun = {
      controller,
      settled: result.then(
        () => undefined,
        () => undefined,
      ),
    };
    this.runs.add(run);
    void run.settled.then(() => this.runs.delete(run));
    return { controller, result };
  }

  /** Resolves true when every run has settled, false when `timeoutMs` passed first. */
  async waitForIdle(timeoutMs: number): Promise<boolean> {
    if (this.runs.size === 0) return true;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs);
    });
    const idle = Promise.all([...this.runs].map((run) => run.settled)).then(() => true as const);
    try {
      return await Promise.race([idle, timedOut]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Fires every run's signal with `reason`. */
  abortAll(reason: unknown): void {
    for (const run of this.runs) run.controller.abort(reason);
  }
}

/** An abort reason that reads as an abort (`name` "AbortError") wherever it surfaces. */
export function abortError(message: string): Error {
  const reason = new Error(message);
  reason.name = "AbortError";
  return reason;
}
