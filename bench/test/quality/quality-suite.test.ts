import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadO200kTokenCounter, withTokenCache } from "@clew/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CellResult, CellSpec } from "../../cell.js";
import { runCell } from "../../cell-runner.js";
import { parseBenchArgs } from "../../cli-options.js";
import { formatTables } from "../../report.js";
import { qualityPreset } from "../../suites/quality/presets.js";
import { qualityFigures } from "../../suites/quality/quality-rows.js";
import type { QualityMetrics } from "../../suites/quality/quality-suite.js";
import { runCrashScenario } from "../../suites/quality/scenarios/crash-scenario.js";
import { createQualityRun } from "../../suites/quality/scenarios/quality-run.js";

const cellFor = (engine: string): CellSpec => ({
  suite: "quality",
  engine,
  counter: "o200k-cached",
  workload: { kind: "quality", preset: "tiny" },
  settings: parseBenchArgs([]).settings,
});

let root: string;
const results: Record<string, CellResult> = {};

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "clew-quality-"));
  for (const engine of ["legacy", "bm25"])
    results[engine] = await runCell(cellFor(engine), { log: () => {}, tempRoot: root });
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const figuresOf = (engine: string) => qualityFigures(results[engine]?.metrics as QualityMetrics);

describe("the quality suite on the tiny preset", () => {
  it("runs every scenario for legacy and bm25 and removes its temporary files", async () => {
    expect(results.legacy?.error).toBeUndefined();
    expect(results.bm25?.error).toBeUndefined();
    expect(await readdir(root)).toEqual([]);
  });

  it("keeps every message, every request valid and within budget", () => {
    for (const engine of ["legacy", "bm25"]) {
      expect(figuresOf(engine)).toMatchObject({
        replayFailures: 0,
        m3RoundTrip: 1,
        m4VerbatimN0: 1,
        m6OverBudget: 0,
        m7Violations: 0,
      });
    }
  });

  it("compacts under legacy, keeping the cache prefix between compactions, and never under bm25", () => {
    expect(figuresOf("legacy").m4Compactions).toBeGreaterThan(0);
    expect(figuresOf("legacy").m8Stable).toBe(1);
    expect(figuresOf("bm25").m4Compactions).toBe(0);
  });

  it("says n/a for recall metrics of an engine without recall tools, and measures them for bm25", () => {
    expect(figuresOf("legacy").m2RecallAt10).toEqual({ na: "no recall tool" });
    expect(figuresOf("legacy").m5Ordered).toEqual({ na: "no recall tool" });
    expect(typeof figuresOf("bm25").m2RecallAt10).toBe("number");
    expect(figuresOf("bm25").m4ExpandExactLast).toBeGreaterThan(0);
  });

  it("prints the engines side by side with reasons for what does not apply", () => {
    const table = formatTables([results.legacy, results.bm25] as CellResult[]);
    const header = table.split("\n")[0] ?? "";
    expect(header).toMatch(/quality suite \(preset tiny\)\s+legacy\s+bm25/);
    expect(table).toMatch(/M2 recall@10 \(after compaction\)\s+n\/a \(no recall tool\)\s+\d+\.\d%/);
    expect(table).toContain("n/a (budget not in preset)");
  });
});

describe("crash replay (M13)", () => {
  it("restores the bm25 store exactly after a SIGKILL halfway and a bootstrap from the full transcript", async () => {
    const crashRoot = await mkdtemp(join(tmpdir(), "clew-crash-"));
    try {
      const run = createQualityRun({
        engine: "bm25",
        root: crashRoot,
        counter: withTokenCache(await loadO200kTokenCounter()),
        log: () => {},
      });
      const report = await runCrashScenario(run, { ...qualityPreset("tiny"), crash: true });
      expect(report).toMatchObject({ source: "recall store", mismatched: 0, duplicates: 0 });
      expect(report.restartedMessages).toBe(report.cleanMessages);
      expect(report.cleanMessages).toBeGreaterThan(0);
    } finally {
      await rm(crashRoot, { recursive: true, force: true });
    }
  });
});
