/**
 * The figures of the engine suite, with issue #8's target for each where it has one. Rows feed
 * the JSON (keys) and the suite's own table (`engine-speed-table.ts`).
 */
import type { MetricRow } from "../suite.js";
import type { EngineSpeedMetrics } from "./engine-speed-cell.js";

/** A target of issue #8: where it applies and whether a figure meets it. */
export interface SpeedTarget {
  /** As printed in the target column. */
  label: string;
  /** History sizes (messages) the target is set for. */
  appliesAt(messages: number): boolean;
  met(value: number): boolean;
}

export type EngineSpeedRow = MetricRow<EngineSpeedMetrics> & {
  /** Printed figure: ms, ms per message, messages/s, a ratio. */
  display: "ms" | "msPerMessage" | "rate" | "ratio";
  target?: SpeedTarget;
};

const everySize = () => true;

/** An engine that stored none of the history keeps no copy: the host's transcript is its store. */
function keepsNoCopy(metrics: EngineSpeedMetrics): string | undefined {
  return metrics.bulkIngest.stored === 0 ? "keeps no copy" : undefined;
}

export const ENGINE_SPEED_ROWS: readonly EngineSpeedRow[] = [
  {
    key: "assembleP50Ms",
    label: "assemble p50 (ms)",
    format: "ms",
    display: "ms",
    slope: true,
    value: (metrics) => metrics.turns.assemble.p50Ms,
  },
  {
    key: "assembleP95Ms",
    label: "assemble p95 (ms)",
    format: "ms",
    display: "ms",
    slope: true,
    value: (metrics) => metrics.turns.assemble.p95Ms,
    target: {
      label: "≤ 5 at ≥ 10k",
      appliesAt: (messages) => messages >= 10_000,
      met: (value) => value <= 5,
    },
  },
  {
    key: "turnIngestMsPerMessage",
    label: "ingest in a turn (ms/message)",
    format: "decimal",
    display: "msPerMessage",
    value: (metrics) => (keepsNoCopy(metrics) ? undefined : metrics.turns.ingest.msPerMessage),
    missing: keepsNoCopy,
    target: { label: "≤ 0.05", appliesAt: everySize, met: (value) => value <= 0.05 },
  },
  {
    key: "bulkIngestMessagesPerSecond",
    label: "bulk ingest (messages/s)",
    format: "rate",
    display: "rate",
    slope: true,
    value: (metrics) => (keepsNoCopy(metrics) ? undefined : metrics.bulkIngest.messagesPerSecond),
    missing: keepsNoCopy,
    target: { label: "≥ 20,000", appliesAt: everySize, met: (value) => value >= 20_000 },
  },
  {
    key: "storeOverRawJsonl",
    label: "store bytes / raw JSONL",
    format: "decimal",
    display: "ratio",
    value: (metrics) => (storeMissing(metrics) ? undefined : metrics.store.overRawJsonl),
    missing: storeMissing,
    target: { label: "≤ 1.5×", appliesAt: everySize, met: (value) => value <= 1.5 },
  },
  {
    key: "compactionCpuMsExcludingSummarizer",
    label: "compaction CPU excl. summarizer (ms)",
    format: "ms",
    display: "ms",
    slope: true,
    value: (metrics) =>
      metrics.compaction.compacted ? metrics.compaction.cpuMsExcludingSummarizer : undefined,
    missing: (metrics) => (metrics.compaction.compacted ? undefined : "compacted nothing"),
    target: {
      label: "≤ 1,000 at 10k",
      appliesAt: (messages) => messages === 10_000,
      met: (value) => value <= 1_000,
    },
  },
];

function storeMissing(metrics: EngineSpeedMetrics): string | undefined {
  return keepsNoCopy(metrics) ?? (metrics.store.bytes === 0 ? "in memory only" : undefined);
}
