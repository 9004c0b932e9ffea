/**
 * Child entry: runs one cell given as `--cell <json>` and prints its result as one marked line on
 * stdout (`cell.ts`). Progress goes to stderr. Exit code 0 even when the cell failed (the error is
 * in the result); 2 when the arguments are unusable.
 */
import { parseArgs } from "node:util";
import type { CellSpec } from "./cell.js";
import { encodeResultLine } from "./cell.js";
import { runCell } from "./cell-runner.js";

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { cell: { type: "string" } }, strict: true });
  if (values.cell === undefined) {
    process.stderr.write("run-workload: --cell <json> is required\n");
    process.exitCode = 2;
    return;
  }
  const cell = JSON.parse(values.cell) as CellSpec;
  const result = await runCell(cell);
  process.stdout.write(encodeResultLine(result));
}

await main();
