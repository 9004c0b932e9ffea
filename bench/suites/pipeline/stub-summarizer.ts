/**
 * A summarizer of fixed cost standing in for the model: it burns a fixed amount of CPU and answers
 * a fixed ~2 KB summary in the required sections. It measures its own CPU time, so compaction
 * cost can be reported without it.
 */
import { SUMMARY_SECTIONS, type Summarizer } from "@clew/core";

export interface StubSummarizer extends Summarizer {
  /**
   * Calls, and time spent inside `summarize`, since the last `reset`. `cpuMs` is, per call, the
   * smaller of the process CPU time and the wall time of the call.
   */
  readonly stats: { calls: number; cpuMs: number; wallMs: number };
  reset(): void;
}

const SUMMARY_TARGET_CHARS = 2_000;

/** The fixed summary: every section heading, filled with filler text to about 2 KB. */
export function fixedSummary(): string {
  const filler = "The bench summarizer stands in for a model and always writes this same text. ";
  const perSection = Math.ceil(SUMMARY_TARGET_CHARS / SUMMARY_SECTIONS.length);
  return SUMMARY_SECTIONS.map(
    (section) =>
      `## ${section}\n${filler.repeat(Math.ceil(perSection / filler.length)).slice(0, perSection)}`,
  ).join("\n\n");
}

/**
 * `busyMs` is spun synchronously on every call (a deterministic cost, unlike a timer, and one that
 * shows up in process CPU time, so subtracting it is exercised). Never rejects; ignores its input.
 */
export function createStubSummarizer(options: { busyMs: number }): StubSummarizer {
  const summary = fixedSummary();
  const stats = { calls: 0, cpuMs: 0, wallMs: 0 };
  return {
    id: "bench-stub",
    stats,
    reset() {
      stats.calls = 0;
      stats.cpuMs = 0;
      stats.wallMs = 0;
    },
    async summarize() {
      const cpuStart = process.cpuUsage();
      const wallStart = performance.now();
      while (performance.now() - wallStart < options.busyMs) {
        // Spinning on purpose: the cost must be CPU, fixed, and independent of the input.
      }
      const used = process.cpuUsage(cpuStart);
      const wallMs = performance.now() - wallStart;
      // Process CPU also counts other threads (GC, file I/O) running meanwhile, and wall time also
      // counts time the spinning thread was descheduled: the smaller is the tighter bound on the
      // stub's own cost, so Clew's figure is never flattered by more than the stub really took.
      stats.calls += 1;
      stats.cpuMs += Math.min(wallMs, (used.user + used.system) / 1000);
      stats.wallMs += wallMs;
      return summary;
    },
  };
}
