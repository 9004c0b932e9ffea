import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CellResult, CellSpec } from "../cell.js";
import { runCell } from "../cell-runner.js";
import { parseBenchArgs } from "../cli-options.js";
import { buildReport, formatTables, writeReport } from "../report.js";

// Shape only: timings depend on the machine and are never asserted here.
const quick = parseBenchArgs(["--quick"]);
const cell: CellSpec = {
  suite: "pipeline",
  engine: "legacy",
  counter: "chars",
  workload: { kind: "synthetic", messages: 120 },
  settings: {
    ...quick.settings,
    warmTurns: 3,
    coldTurns: 2,
    warmupTurns: 1,
    minTurns: 1,
    summarizerBusyMs: 1,
  },
};

let root: string;
let result: CellResult;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "clew-bench-smoke-"));
  result = await runCell(cell, { log: () => {}, tempRoot: root });
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** Every number anywhere in `value`, with its path. */
function numbersIn(value: unknown, path = "$"): [string, number][] {
  if (typeof value === "number") return [[path, value]];
  if (typeof value !== "object" || value === null) return [];
  return Object.entries(value).flatMap(([key, child]) => numbersIn(child, `${path}.${key}`));
}

describe("the pipeline suite on a tiny synthetic session", () => {
  it("measures every phase and reports only finite numbers", () => {
    expect(result.error).toBeUndefined();
    expect(result.metrics).toMatchObject({
      messages: 120,
      ingest: { entries: 120, messages: 120, batchSize: 500 },
      warmTurn: { samples: 3, requested: 3 },
      coldTurn: { samples: 2, requested: 2 },
      compaction: { compacted: true, summarizerCalls: expect.any(Number) },
    });
    const numbers = numbersIn({ metrics: result.metrics, memory: result.memory });
    for (const field of [
      "$.metrics.ingest.messagesPerSecond",
      "$.metrics.ingest.bytesPerMessage",
      "$.metrics.warmTurn.p50Ms",
      "$.metrics.warmTurn.p95Ms",
      "$.metrics.coldTurn.p50Ms",
      "$.metrics.coldTurn.p95Ms",
      "$.metrics.compaction.cpuMsExcludingSummarizer",
      "$.memory.maxRssMb",
      "$.memory.polledPeakMb",
    ]) {
      expect(numbers.map(([path]) => path)).toContain(field);
    }
    for (const [path, value] of numbers) expect(Number.isFinite(value), path).toBe(true);
  });

  it("removes the cell's temporary Clew home", async () => {
    expect(await readdir(root)).toEqual([]);
  });

  it("prints the cell in the table and writes the same figures as JSON", async () => {
    const table = formatTables([result]);
    expect(table).toContain("synthetic 120");
    expect(table).toContain("warm turn p50 (ms)");
    expect(table).not.toContain("error");

    const outDir = join(root, "results");
    const report = buildReport(quick, [result], { startedAt: new Date(0), finishedAt: new Date(1) });
    const written = await writeReport(report, outDir);
    expect(written.map((path) => path.slice(outDir.length + 1))).toEqual([
      "1970-01-01T00-00-00.000Z.json",
      "latest.json",
    ]);
    const latest = JSON.parse(await readFile(join(outDir, "latest.json"), "utf8"));
    expect(latest.cells[0].metrics).toEqual(result.metrics);
    expect(latest.environment.cpus).toBeGreaterThan(0);
    await rm(outDir, { recursive: true });
  });

  it("records a failing cell as an error instead of throwing", async () => {
    const failed = await runCell({ ...cell, engine: "no-such-engine" }, { log: () => {}, tempRoot: root });
    expect(failed.metrics).toBeUndefined();
    expect(failed.error).toContain("no-such-engine");
    expect(formatTables([failed])).toContain("error");
  });
});
