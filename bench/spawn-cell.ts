import { spawn } from "node:child_process";
import { join } from "node:path";
import type { CellResult, CellSpec } from "./cell.js";
import { decodeResultLine } from "./cell.js";
import { workloadName } from "./workloads/workload.js";

const REPO_ROOT = join(import.meta.dirname, "..");
const CHILD_ENTRY = join(import.meta.dirname, "run-workload.ts");

/**
 * Runs one cell in a fresh `node --import tsx` process, so its peak memory is its own, and returns
 * the result it prints. Never rejects for a failing child: a crash, a non-zero exit or a missing
 * result line comes back as a result with `error` set. The child's stderr passes through.
 */
export function runCellInChild(cell: CellSpec): Promise<CellResult> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--import", "tsx", CHILD_ENTRY, "--cell", JSON.stringify(cell)], {
      cwd: REPO_ROOT,
      stdio: ["ignore", "pipe", "inherit"],
    });
    const chunks: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => chunks.push(chunk));
    const fail = (error: string): CellResult => ({
      cell,
      workloadName: workloadName(cell.workload),
      error,
      durationMs: performance.now() - started,
    });
    child.on("error", (error) => resolve(fail(`could not start the child: ${error.message}`)));
    child.on("close", (code, signal) => {
      let result: CellResult | undefined;
      try {
        result = decodeResultLine(Buffer.concat(chunks).toString("utf8"));
      } catch (error) {
        resolve(fail(`unreadable result line: ${error instanceof Error ? error.message : String(error)}`));
        return;
      }
      if (result !== undefined && code === 0) resolve(result);
      else
        resolve(
          fail(
            `child exited with ${signal ?? `code ${code}`} and ${result === undefined ? "no" : "a"} result`,
          ),
        );
    });
  });
}
