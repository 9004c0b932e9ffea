/**
 * Peak resident memory of this process, from two sources that fail differently:
 * - polling `process.memoryUsage.rss()` on a timer, which misses peaks inside long synchronous
 *   stretches (the timer cannot fire), and
 * - the kernel's high-water mark `process.resourceUsage().maxRSS`, exact but counted from process
 *   start, so it includes whatever ran before the sampler.
 * Run each workload in its own process so neither figure carries another workload's peak.
 */
export interface RssPeak {
  /** Highest polled RSS, in MB (10^6 bytes). */
  polledPeakMb: number;
  /** Kernel high-water mark of the whole process, in MB. */
  maxRssMb: number;
  polls: number;
}

const BYTES_PER_MB = 1_000_000;
const KIB = 1024;

export class RssSampler {
  private peakBytes = 0;
  private polls = 0;
  private timer: NodeJS.Timeout | undefined;

  /** Starts polling every `intervalMs` (default 25). The timer never keeps the process alive. */
  start(intervalMs = 25): void {
    this.sample();
    this.timer ??= setInterval(() => this.sample(), intervalMs);
    this.timer.unref();
  }

  /** Takes one reading now; call it at phase boundaries so short phases are not missed. */
  sample(): void {
    this.peakBytes = Math.max(this.peakBytes, process.memoryUsage.rss());
    this.polls += 1;
  }

  /** Stops polling (idempotent) and returns the peaks seen so far. */
  stop(): RssPeak {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    this.sample();
    return {
      polledPeakMb: this.peakBytes / BYTES_PER_MB,
      maxRssMb: (process.resourceUsage().maxRSS * KIB) / BYTES_PER_MB,
      polls: this.polls,
    };
  }
}
