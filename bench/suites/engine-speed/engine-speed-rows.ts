/**
 * The figures of the engine suite, with issue #8's target for each where it has one. Rows feed
 * the JSON (keys) and the suite's own table (`engine-speed-table.ts`).
 */
import type { MetricRow } from "../suite.js";
import type { ColdStartMetrics } from "./cold-start.js";
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

const BULK_TARGET: SpeedTarget = { label: "≥ 20,000", appliesAt: everySize, met: (value) => value >= 20_000 };

/** An engine that stored none of the history keeps no copy: the host's transcript is its store. */
function keepsNoCopy(metrics: EngineSpeedMetrics): string | undefined {
  return metrics.bulkIngest.stored === 0 ? "keeps no copy" : undefined;
}

const ASSEMBLE_TARGET: SpeedTarget = {
  label: "≤ 5 at ≥ 10k",
  appliesAt: (messages) => messages >= 10_000,
  met: (value) => value <= 5,
};

/** Why the cold start has no figures: too large a history, or a child that failed (see the notes). */
function coldStartMissing(metrics: EngineSpeedMetrics): string | undefined {
  const { coldStart } = metrics;
  if (coldStart.measured) return undefined;
  return coldStart.failed === true ? "failed, see notes" : coldStart.reason;
}

function coldStartRow(
  key: string,
  label: string,
  figure: (coldStart: ColdStartMetrics) => number | undefined,
  missingFigure: string,
): EngineSpeedRow {
  return {
    key,
    label,
    format: "ms",
    display: "ms",
    slope: true,
    value: (metrics) => (metrics.coldStart.measured ? figure(metrics.coldStart) : undefined),
    missing: (metrics) => coldStartMissing(metrics) ?? missingFigure,
  };
}

/** M9's cold start, in a new process over the cell's state folder; no target of issue #8. */
export const COLD_START_ROWS: readonly EngineSpeedRow[] = [
  coldStartRow("coldStartOpenMs", "cold start: open engine (ms)", (cold) => cold.openMs, "does not apply"),
  coldStartRow(
    "coldStartBootstrapMs",
    "cold start: bootstrap (ms)",
    (cold) => cold.bootstrapMs,
    "no bootstrap",
  ),
  coldStartRow(
    "coldStartFirstAssembleMs",
    "cold start: first assemble (ms)",
    (cold) => cold.firstAssembleMs,
    "does not apply",
  ),
  coldStartRow("coldStartTotalMs", "cold start: total (ms)", (cold) => cold.totalMs, "does not apply"),
];

export const ENGINE_SPEED_ROWS: readonly EngineSpeedRow[] = [
  {
    key: "assembleP50Ms",
    label: "assemble with prompt p50 (ms)",
    format: "ms",
    display: "ms",
    slope: true,
    value: (metrics) => metrics.turns.assemble.p50Ms,
  },
  {
    key: "assembleP95Ms",
    label: "assemble with prompt p95 (ms)",
    format: "ms",
    display: "ms",
    slope: true,
    value: (metrics) => metrics.turns.assemble.p95Ms,
    target: ASSEMBLE_TARGET,
  },
  {
    key: "assembleWithoutPromptP50Ms",
    label: "assemble without prompt p50 (ms)",
    format: "ms",
    display: "ms",
    slope: true,
    value: (metrics) => metrics.turns.withoutPrompt.latency.p50Ms,
  },
  {
    key: "assembleWithoutPromptP95Ms",
    label: "assemble without prompt p95 (ms)",
    format: "ms",
    display: "ms",
    slope: true,
    value: (metrics) => metrics.turns.withoutPrompt.latency.p95Ms,
    target: ASSEMBLE_TARGET,
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
    key: "bulkBootstrapMessagesPerSecond",
    label: "bulk ingest: bootstrap (messages/s)",
    format: "rate",
    display: "rate",
    slope: true,
    value: (metrics) =>
      bootstrapMissing(metrics) === undefined ? metrics.bulkIngest.messagesPerSecond : undefined,
    missing: bootstrapMissing,
    target: BULK_TARGET,
  },
  {
    key: "bulkIngestBatchMessagesPerSecond",
    label: "bulk ingest: ingestBatch (messages/s)",
    format: "rate",
    display: "rate",
    slope: true,
    value: (metrics) =>
      batchMissing(metrics) === undefined && metrics.batchIngest.measured
        ? metrics.batchIngest.messagesPerSecond
        : undefined,
    missing: batchMissing,
    target: BULK_TARGET,
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
  ...COLD_START_ROWS,
];

/** The host path was not bootstrap: the engine has none, or it declined. */
function bootstrapMissing(metrics: EngineSpeedMetrics): string | undefined {
  const noCopy = keepsNoCopy(metrics);
  if (noCopy !== undefined) return noCopy;
  if (metrics.bulkIngest.path === "bootstrap") return undefined;
  const declined = metrics.bulkIngest.bootstrapDeclined;
  return declined === undefined ? "no bootstrap" : `bootstrap declined: ${declined}`;
}

function batchMissing(metrics: EngineSpeedMetrics): string | undefined {
  const noCopy = keepsNoCopy(metrics);
  if (noCopy !== undefined) return noCopy;
  return metrics.batchIngest.measured ? undefined : metrics.batchIngest.reason;
}

function storeMissing(metrics: EngineSpeedMetrics): string | undefined {
  return keepsNoCopy(metrics) ?? (metrics.store.bytes === 0 ? "in memory only" : undefined);
}
