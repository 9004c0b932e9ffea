/**
 * The engine suite (`--suite engine`): issue #8's speed targets for any bench engine, side by side.
 * Each cell is one engine on one synthetic history size, in its own process; the engine is driven
 * only through the context-engine contract, with no host and no model (`engine-speed-cell.ts`).
 * Token counts use the cached chars counter for every engine, whatever `--counter` says.
 */
import type { BenchSuite } from "../suite.js";
import { type EngineSpeedMetrics, runEngineSpeedCell } from "./engine-speed-cell.js";
import { writeAssembleChart } from "./engine-speed-chart.js";
import { ENGINE_SPEED_ROWS } from "./engine-speed-rows.js";
import { formatEngineSpeedTable } from "./engine-speed-table.js";

export const engineSpeedSuite: BenchSuite<EngineSpeedMetrics> = {
  name: "engine",
  description:
    "issue #8 speed targets per engine: assemble with and without the prompt, bulk and per-turn ingest, " +
    "store size, compaction CPU, cold start (M9), memory",
  run: runEngineSpeedCell,
  rows: ENGINE_SPEED_ROWS,
  cells: {
    workloads: ({ sizes }) => sizes.map((messages) => ({ kind: "synthetic", messages })),
    counters: ["chars-cached"],
  },
  async present(results, output) {
    return {
      text: formatEngineSpeedTable(results),
      files: await writeAssembleChart(results, output.outDir, output.stamp),
    };
  },
};
