/**
 * The lines under the engine suite's table (legend, paths taken, store files, what did not compact
 * or start, errors), and the per-cell facts the table and the notes both read.
 */
import type { CellResult } from "../../cell.js";
import { machineProbeNotes } from "../../metrics/machine-probe.js";
import type { LatencySummary } from "../../metrics/percentiles.js";
import { formatCount } from "../../workloads/workload.js";
import { BULK_BATCH_MESSAGES, type BulkIngestMetrics } from "./bulk-ingest.js";
import type { EngineSpeedMetrics } from "./engine-speed-cell.js";

/** Picks one assemble mode's latencies from a cell. */
export type AssembleLatency = (metrics: EngineSpeedMetrics) => LatencySummary;

export const withPrompt: AssembleLatency = (metrics) => metrics.turns.assemble;
export const withoutPrompt: AssembleLatency = (metrics) => metrics.turns.withoutPrompt.latency;

/** The cell's history size in messages (0 for a workload that is not synthetic). */
export function sizeOf(result: CellResult): number {
  return result.cell.workload.kind === "synthetic" ? result.cell.workload.messages : 0;
}

/** Every measured cell of `engine` assembled by handing back its input, in `mode`. */
export function isPassThrough(
  engine: string,
  results: readonly CellResult[],
  mode: AssembleLatency,
): boolean {
  const measured = results.filter((result) => result.cell.engine === engine && result.metrics !== undefined);
  const passedThrough = ({ turns }: EngineSpeedMetrics) =>
    mode === withPrompt ? turns.passThrough : turns.withoutPrompt.passThrough;
  return (
    measured.length > 0 && measured.every((result) => passedThrough(result.metrics as EngineSpeedMetrics))
  );
}

/** Compacted without calling the bench's stub: the engine ran a summarizer of its own. */
export function usedOwnSummarizer(metrics: EngineSpeedMetrics): boolean {
  return metrics.compaction.compacted && metrics.compaction.summarizerCalls === 0;
}

/** Lines under the table, for the cells of one run. */
export function engineSpeedNotes(
  engines: readonly string[],
  sizes: readonly number[],
  results: readonly CellResult[],
): string[] {
  const metricsAt = (engine: string, size: number) =>
    results.find((result) => result.cell.engine === engine && sizeOf(result) === size)?.metrics as
      | EngineSpeedMetrics
      | undefined;
  const perEngine = (describe: (engine: string) => string) => engines.map(describe).join(", ");
  const largest = (engine: string) =>
    [...sizes]
      .reverse()
      .map((size) => metricsAt(engine, size))
      .find((metrics) => metrics !== undefined);
  const turnCounts = (engine: string) =>
    sizes
      .map((size) => metricsAt(engine, size)?.turns)
      .map((turns) =>
        turns === undefined ? "–" : `${turns.assemble.samples}+${turns.withoutPrompt.latency.samples}`,
      )
      .join("/");
  const lines = [
    "✓ meets, ✗ misses issue #8's target. Timings come from a shared machine: noisy, never gated.",
    `bulk ingest, host path: ${perEngine((engine) => `${engine} ${largest(engine)?.bulkIngest.path ?? "–"}`)}; ` +
      `per-turn path: ${perEngine((engine) => `${engine} ${largest(engine)?.turns.ingest.path ?? "–"}`)}`,
    `bulk ingest: bootstrap reads and parses the JSONL transcript; ingestBatch hands over the messages in memory, ` +
      `${BULK_BATCH_MESSAGES} per call, into the empty store of a second engine (the host path's figure when that was ingestBatch)`,
    `turns measured with+without prompt (${sizes.map(formatCount).join("/")}): ${perEngine(
      (engine) => `${engine} ${turnCounts(engine)}`,
    )}`,
    ...coldStartLegend(engines, largest),
  ];
  for (const engine of engines) {
    const metrics = largest(engine);
    if (metrics === undefined) continue;
    if (isPassThrough(engine, results, withPrompt))
      lines.push(
        `${engine} assemble returns the history it is given: its times are call overhead, timer and GC noise`,
      );
    if (metrics.store.bytes > 0)
      lines.push(
        `${engine} store at ${formatCount(metrics.historyMessages)} messages: ${storeFiles(metrics)}`,
      );
    if (!metrics.compaction.compacted)
      lines.push(`${engine} compaction: ${metrics.compaction.reason ?? "no reason given"}`);
  }
  if (
    results.some(
      (result) => result.metrics !== undefined && usedOwnSummarizer(result.metrics as EngineSpeedMetrics),
    )
  ) {
    lines.push(
      "† the engine never called the bench's stub summarizer: the figure includes its own summarizer",
    );
  }
  lines.push(...storedFewer(results), ...coldStartFailures(results));
  lines.push(
    ...machineProbeNotes(
      results.map((result) => ({
        name: `${result.cell.engine} ${result.workloadName}`,
        probes: (result.metrics as EngineSpeedMetrics | undefined)?.machine,
      })),
    ),
  );
  const failed = results.filter((result) => result.error !== undefined);
  if (failed.length > 0) lines.push("errors:");
  for (const result of failed) lines.push(`  ${result.cell.engine} ${result.workloadName}: ${result.error}`);
  return lines;
}

/** What the cold-start rows count, with the start-up each engine's child left out. */
function coldStartLegend(
  engines: readonly string[],
  largest: (engine: string) => EngineSpeedMetrics | undefined,
): string[] {
  const startups = engines.flatMap((engine) => {
    const coldStart = largest(engine)?.coldStart;
    return coldStart?.measured === true ? [`${engine} ${Math.round(coldStart.startupMs)}`] : [];
  });
  if (startups.length === 0) return [];
  return [
    "cold start: a new process opens the engine over the state the turns left, bootstraps from the " +
      "transcript when the engine can, assembles once with the next prompt; left out: Node, tsx and " +
      `module imports (ms: ${startups.join(", ")}) and reading the transcript (the host's work)`,
  ];
}

/**
 * Cells where a bulk path stored fewer messages than it was given, or the cold start's bootstrap
 * stored messages anew: the synthetic history repeats byte-identical messages from copy to copy,
 * and how an engine tells repeats from replays shows here.
 */
function storedFewer(results: readonly CellResult[]): string[] {
  return results.flatMap((result) => {
    const metrics = result.metrics as EngineSpeedMetrics | undefined;
    if (metrics === undefined) return [];
    const fewer = (ingest: BulkIngestMetrics | undefined) =>
      ingest !== undefined && ingest.stored > 0 && ingest.stored < ingest.messages ? ingest : undefined;
    const host = fewer(metrics.bulkIngest);
    // When the host path was ingestBatch, the batch figures are the same call's.
    const separateBatch = metrics.batchIngest.measured && metrics.bulkIngest.path !== "ingestBatch";
    const batch = fewer(separateBatch && metrics.batchIngest.measured ? metrics.batchIngest : undefined);
    const parts: string[] = [];
    if (host !== undefined && batch !== undefined && host.stored === batch.stored)
      parts.push(`bulk ingest stored ${count(host.stored)} of ${count(host.messages)} messages (both paths)`);
    else {
      if (host !== undefined)
        parts.push(`${host.path} stored ${count(host.stored)} of ${count(host.messages)}`);
      if (batch !== undefined)
        parts.push(`ingestBatch stored ${count(batch.stored)} of ${count(batch.messages)}`);
    }
    const imported = metrics.coldStart.measured ? (metrics.coldStart.bootstrap?.importedMessages ?? 0) : 0;
    // An engine keeping its copy in memory only imports everything again: nothing to say then.
    if (imported > 0 && metrics.store.bytes > 0)
      parts.push(`the cold start's bootstrap stored ${count(imported)} messages anew`);
    return parts.length === 0 ? [] : [`${result.cell.engine} ${result.workloadName}: ${parts.join("; ")}`];
  });
}

function count(value: number): string {
  return value.toLocaleString("en-US");
}

function coldStartFailures(results: readonly CellResult[]): string[] {
  return results.flatMap((result) => {
    const coldStart = (result.metrics as EngineSpeedMetrics | undefined)?.coldStart;
    if (coldStart === undefined || coldStart.measured || coldStart.failed !== true) return [];
    return [`${result.cell.engine} ${result.workloadName} cold start failed: ${coldStart.reason}`];
  });
}

/** `lossless.db 12.3 MB, lossless.db-wal 4.0 MB` (after bulk ingest), and the raw JSONL beside it. */
function storeFiles(metrics: EngineSpeedMetrics): string {
  const megabytes = (bytes: number) => `${(bytes / 1_000_000).toFixed(1)} MB`;
  const files = Object.entries(metrics.store.files).map(([name, bytes]) => `${name} ${megabytes(bytes)}`);
  return `${files.join(", ")} (raw JSONL ${megabytes(metrics.rawJsonlBytes)}; after the turns ${megabytes(metrics.store.atEnd.bytes)})`;
}
