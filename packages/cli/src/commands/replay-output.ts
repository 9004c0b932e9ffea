import type { ReplayProgress } from "@clew/agent";

const BLOCKS = ["▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"];

/** `[#######.......] 12/36 turns · context 18.2k/64k (28%)`. */
export function progressBar(progress: ReplayProgress): string {
  const width = 24;
  const done = Math.round((progress.turn / Math.max(1, progress.totalTurns)) * width);
  const percent = Math.round((progress.contextTokens / progress.window) * 100);
  return `[${"#".repeat(done)}${".".repeat(width - done)}] ${progress.turn}/${progress.totalTurns} turns · context ${compact(progress.contextTokens)}/${compact(progress.window)} (${percent}%)`;
}

/** The window fill after every turn as one sparkline, with its range. */
export function formatFill(fill: readonly ReplayProgress[]): string {
  if (fill.length === 0) return "Window fill: (no turns)";
  const window = fill[0]?.window ?? 1;
  const line = fill
    .map(
      (point) =>
        BLOCKS[Math.min(BLOCKS.length - 1, Math.floor((point.contextTokens / window) * BLOCKS.length))],
    )
    .join("");
  const values = fill.map((point) => point.contextTokens);
  const peak = Math.max(...values);
  return `Window fill per turn (0 to ${compact(window)}): ${line}\nPeak ${compact(peak)} (${Math.round((peak / window) * 100)}%), last ${compact(values.at(-1) ?? 0)}`;
}

function compact(tokens: number): string {
  return tokens >= 1000 ? `${(tokens / 1000).toFixed(1)}k` : String(tokens);
}
