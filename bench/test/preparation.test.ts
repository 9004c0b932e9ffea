import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CellResult, CellSpec } from "../cell.js";
import { runCell } from "../cell-runner.js";
import { parseBenchArgs } from "../cli-options.js";
import {
  PREPARATION_BUDGETS,
  type PreparationMetrics,
  preparationSuite,
} from "../suites/preparation/preparation-suite.js";

// Shape only: the counts depend on timing and are never compared with a fixed figure.
const quick = parseBenchArgs(["--quick"]);

function preparationCell(engine: string): CellSpec {
  return {
    suite: "preparation",
    engine,
    counter: "chars-cached",
    workload: { kind: "synthetic", messages: 300 },
    settings: quick.settings,
  };
}

let root: string;
const results = new Map<string, CellResult>();

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "clew-preparation-"));
  for (const engine of ["legacy", "lossless"])
    results.set(engine, await runCell(preparationCell(engine), { log: () => {}, tempRoot: root }));
}, 120_000);

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

function metricsOf(engine: string): PreparationMetrics {
  const result = results.get(engine);
  expect(result?.error).toBeUndefined();
  return result?.metrics as PreparationMetrics;
}

function row(key: string, metrics: PreparationMetrics): number | string | undefined {
  const found = preparationSuite.rows.find((candidate) => candidate.key === key);
  if (found === undefined) throw new Error(`no row ${key}`);
  return found.value(metrics) ?? found.missing?.(metrics);
}

describe("the preparation suite", () => {
  it("reads each budget's threshold compactions from the engine's flight recorder", () => {
    const metrics = metricsOf("lossless");
    if (!metrics.ownsCompaction) throw new Error("lossless owns compaction");
    expect(metrics.budgets.map((figures) => figures.budgetTokens)).toEqual([...PREPARATION_BUDGETS]);
    const smallest = metrics.budgets[0];
    expect(smallest?.passes).toBeGreaterThan(0);
    for (const figures of metrics.budgets) {
      expect(figures.prepared).toBeLessThanOrEqual(figures.summaries);
      // Every summary a pass published came from a summarizer call (prepared or made by it).
      expect(figures.calls).toBeGreaterThanOrEqual(figures.summaries);
      expect(figures.waitMs).toBeGreaterThanOrEqual(figures.longestWaitMs);
    }
    const share = row("summariesMadeInCompaction32k", metrics);
    expect(typeof share).toBe("number");
    expect(share).toBeGreaterThanOrEqual(0);
    expect(share).toBeLessThanOrEqual(1);
  });

  it("gives an engine that does not own compaction n/a, with the reason", () => {
    const metrics = metricsOf("legacy");
    expect(metrics.ownsCompaction).toBe(false);
    expect(row("thresholdCompactions128k", metrics)).toBe("the engine does not own compaction");
  });
});
