import type { FigureRow } from "./figure-row.js";
import type { DiskUsage } from "./metrics/disk-usage.js";
import type { Figure } from "./metrics/figure.js";
import type { QualityMetrics } from "./quality-suite.js";

/**
 * M11: the transcript and the engine's own store apart and together, since a user of an engine
 * with a store pays for both; store rows are n/a for engines without one.
 */
export function diskRows(): FigureRow[] {
  const afterIngest = (pick: (disk: DiskUsage) => Figure) => (metrics: QualityMetrics) =>
    pick(metrics.conversation.diskAfterIngest);
  const afterCompaction = (pick: (disk: DiskUsage) => Figure) => (metrics: QualityMetrics) =>
    pick(metrics.conversation.diskAfterCompaction);
  return [
    {
      key: "m11BytesPerMessage",
      label: "M11 bytes on disk / message (transcript + store)",
      format: "bytes",
      figure: afterIngest((disk) => disk.bytesPerMessage),
    },
    {
      key: "m11TranscriptToRaw",
      label: "M11 transcript / raw JSONL",
      format: "decimal",
      figure: afterIngest((disk) => disk.transcriptToRaw),
    },
    {
      key: "m11StoreToRaw",
      label: "M11 engine store / raw JSONL (closed)",
      format: "decimal",
      figure: afterIngest((disk) => disk.storeToRaw),
    },
    {
      key: "m11StoreOpenToRaw",
      label: "M11 engine store / raw JSONL (open, with WAL)",
      format: "decimal",
      figure: afterIngest((disk) => disk.storeOpenToRaw),
    },
    {
      key: "m11DiskToRaw",
      label: "M11 transcript + store / raw JSONL",
      format: "decimal",
      figure: afterIngest((disk) => disk.diskToRaw),
    },
    {
      key: "m11BytesPerMessageCompacted",
      label: "M11 bytes / message after compaction (transcript + store)",
      format: "bytes",
      figure: afterCompaction((disk) => disk.bytesPerMessage),
    },
    {
      key: "m11StoreToRawCompacted",
      label: "M11 engine store / raw JSONL after compaction (closed)",
      format: "decimal",
      figure: afterCompaction((disk) => disk.storeToRaw),
    },
    {
      key: "m11DiskToRawCompacted",
      label: "M11 transcript + store / raw JSONL after compaction",
      format: "decimal",
      figure: afterCompaction((disk) => disk.diskToRaw),
    },
    {
      key: "m11SummaryBytes",
      label: "M11 summary bytes after compaction",
      format: "bytes",
      figure: afterCompaction((disk) => disk.summaryBytes),
    },
  ];
}
