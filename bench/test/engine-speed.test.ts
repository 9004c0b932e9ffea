import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentMessage, NewTranscriptEntry } from "@clew/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CellResult, CellSpec } from "../cell.js";
import { runCell } from "../cell-runner.js";
import { buildCells, parseBenchArgs } from "../cli-options.js";
import { splitReplay } from "../suites/engine-speed/engine-history.js";
import type { EngineSpeedMetrics } from "../suites/engine-speed/engine-speed-cell.js";
import { engineSpeedSuite } from "../suites/engine-speed/engine-speed-suite.js";

// Shape only: timings depend on the machine and are never compared with anything but zero.
const quick = parseBenchArgs(["--quick"]);

function engineCell(engine: string, messages: number): CellSpec {
  return {
    suite: "engine",
    engine,
    counter: "chars-cached",
    workload: { kind: "synthetic", messages },
    settings: { ...quick.settings, warmTurns: 3, warmupTurns: 1, minTurns: 1, phaseBudgetMs: 1_000 },
  };
}

let root: string;
const results: CellResult[] = [];

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "clew-engine-speed-"));
  for (const [engine, messages] of [
    ["legacy", 100],
    ["legacy", 200],
    ["lossless", 200],
  ] as const) {
    results.push(await runCell(engineCell(engine, messages), { log: () => {}, tempRoot: root }));
  }
}, 60_000);

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

function metricsOf(engine: string, messages: number): EngineSpeedMetrics {
  const result = results.find(
    (candidate) =>
      candidate.cell.engine === engine &&
      candidate.cell.workload.kind === "synthetic" &&
      candidate.cell.workload.messages === messages,
  );
  expect(result?.error).toBeUndefined();
  return result?.metrics as EngineSpeedMetrics;
}

/** The suite's row `key` for one cell: its value, or its n/a reason. */
function row(key: string, metrics: EngineSpeedMetrics): number | string | undefined {
  const found = engineSpeedSuite.rows.find((candidate) => candidate.key === key);
  if (found === undefined) throw new Error(`no row ${key}`);
  return found.value(metrics) ?? found.missing?.(metrics);
}

describe("the engine suite on tiny histories", () => {
  it("runs every cell in a temporary home it removes, with its own peak memory", async () => {
    expect(results.map((result) => result.error)).toEqual([undefined, undefined, undefined]);
    for (const result of results) expect(result.memory?.maxRssMb).toBeGreaterThan(0);
    expect(await readdir(root)).toEqual([]);
  });

  it("measures the lossless engine on every figure, through bootstrap and afterTurn", () => {
    const metrics = metricsOf("lossless", 200);
    expect(metrics.historyMessages).toBeGreaterThanOrEqual(200);
    expect(metrics.bulkIngest).toMatchObject({ path: "bootstrap", stored: metrics.historyMessages });
    expect(metrics.turns.ingest.path).toBe("afterTurn");
    expect(metrics.turns.passThrough).toBe(false);
    expect(metrics.compaction).toMatchObject({ ok: true, compacted: true, delegated: false });
    expect(metrics.store.files).toHaveProperty(["lossless.db"]);
    for (const key of [
      "assembleP50Ms",
      "assembleP95Ms",
      "assembleWithoutPromptP50Ms",
      "assembleWithoutPromptP95Ms",
      "turnIngestMsPerMessage",
      "bulkBootstrapMessagesPerSecond",
      "bulkIngestBatchMessagesPerSecond",
      "storeOverRawJsonl",
      "compactionCpuMsExcludingSummarizer",
      "coldStartOpenMs",
      "coldStartBootstrapMs",
      "coldStartFirstAssembleMs",
      "coldStartTotalMs",
    ]) {
      const value = row(key, metrics);
      expect(typeof value, key).toBe("number");
      expect(value, key).toBeGreaterThan(0);
    }
  });

  it("alternates turns with and without the prompt, so each mode gets every other measured turn", () => {
    const metrics = metricsOf("lossless", 200);
    expect(metrics.turns.assemble.samples).toBe(3);
    expect(metrics.turns.withoutPrompt.latency.samples).toBe(3);
    expect(metrics.turns.turnsRun).toBe(1 + 6);
    expect(metrics.turns.withoutPrompt.passThrough).toBe(false);
    expect(metrics.turns.withoutPrompt.lastAssembledMessages).toBeGreaterThan(0);
    expect(metrics.turns.withoutPrompt.lastEstimatedTokens).toBeLessThanOrEqual(metrics.tokenBudget);
  });

  it("measures ingestBatch from memory into an empty store apart from bootstrap", () => {
    const metrics = metricsOf("lossless", 200);
    expect(metrics.batchIngest).toMatchObject({
      measured: true,
      path: "ingestBatch",
      messages: metrics.historyMessages,
      stored: metrics.historyMessages,
    });
  });

  it("starts the lossless engine cold in a new process over the state the turns left", () => {
    const metrics = metricsOf("lossless", 200);
    const { coldStart } = metrics;
    if (!coldStart.measured) throw new Error(`cold start not measured: ${coldStart.reason}`);
    expect(coldStart.bootstrap?.bootstrapped).toBe(true);
    // The transcript now also holds the turns, as a host stores them.
    expect(coldStart.messages).toBeGreaterThan(metrics.historyMessages);
    expect(coldStart.passThrough).toBe(false);
    expect(coldStart.assembledMessages).toBeGreaterThan(0);
    expect(coldStart.startupMs).toBeGreaterThan(0);
    expect(coldStart.maxRssMb).toBeGreaterThan(0);
    const parts = coldStart.openMs + (coldStart.bootstrapMs ?? 0) + coldStart.firstAssembleMs;
    expect(coldStart.totalMs).toBeCloseTo(parts, 6);
  });

  it("gives legacy n/a for what it does not keep and compacts it through the runtime", () => {
    const metrics = metricsOf("legacy", 200);
    expect(metrics.bulkIngest).toMatchObject({ path: "ingest", stored: 0 });
    expect(metrics.batchIngest).toEqual({ measured: false, reason: "no ingestBatch" });
    expect(metrics.turns.passThrough).toBe(true);
    expect(metrics.turns.withoutPrompt.passThrough).toBe(true);
    expect(metrics.store.bytes).toBe(0);
    for (const key of [
      "turnIngestMsPerMessage",
      "bulkBootstrapMessagesPerSecond",
      "bulkIngestBatchMessagesPerSecond",
      "storeOverRawJsonl",
    ]) {
      expect(row(key, metrics), key).toBe("keeps no copy");
    }
    expect(row("coldStartBootstrapMs", metrics)).toBe("no bootstrap");
    expect(row("coldStartTotalMs", metrics)).toBeGreaterThan(0);
    expect(metrics.compaction).toMatchObject({ ok: true, compacted: true, delegated: true });
    expect(metrics.compaction.summarizerCalls).toBeGreaterThan(0);
    expect(row("compactionCpuMsExcludingSummarizer", metrics)).toBeGreaterThan(0);
    expect(row("assembleP95Ms", metrics)).toBeGreaterThan(0);
  });

  it("prints engines side by side with targets, and charts assemble against history", async () => {
    const outDir = join(root, "results");
    const shown = await engineSpeedSuite.present?.(results, { outDir, stamp: "1970-01-01T00:00:00.000Z" });
    const [title, header, , ...body] = shown?.text.split("\n") ?? [];
    expect(title).toContain("token counter chars-cached");
    expect(header?.split(/\s+/)).toEqual(["figure", "history", "target", "legacy", "lossless"]);
    // The row's second line is the 200-message history, where both engines have a cell.
    const secondLine = (label: string) => body[body.findIndex((line) => line.startsWith(label)) + 1] ?? "";
    for (const label of ["bulk ingest: bootstrap", "bulk ingest: ingestBatch"]) {
      expect(secondLine(label), label).toMatch(/^\s+200\s+≥ 20,000\s+n\/a \(keeps no copy\)\s+[\d,]+ [✓✗]$/);
    }
    expect(secondLine("cold start: bootstrap")).toMatch(/^\s+200\s+n\/a \(no bootstrap\)\s+[\d.,]+$/);
    expect(secondLine("cold start: total")).toMatch(/^\s+200\s+[\d.,]+\s+[\d.,]+$/);
    for (const mode of ["with", "without"]) {
      const slope = body.find((line) => line.startsWith(`assemble ${mode} prompt p95 log-log slope`)) ?? "";
      expect(slope, mode).toMatch(/\s+100–200\s+≤ 0\.1 \(flat\)\s+-?\d+\.\d\d \(pass-through\)\s+–$/);
    }
    expect(shown?.files.map((path) => path.slice(outDir.length + 1))).toEqual([
      "engine-assemble-1970-01-01T00-00-00.000Z.svg",
      "engine-assemble-latest.svg",
    ]);
    expect(await readFile(join(outDir, "engine-assemble-latest.svg"), "utf8")).toContain("legacy p95");
    await rm(outDir, { recursive: true });
  });
});

describe("engine suite cells and replay", () => {
  it("builds one cell per engine and size, counted with the cached chars counter", () => {
    const cells = buildCells(
      parseBenchArgs([
        "--suite",
        "engine",
        "--engine",
        "legacy,lossless",
        "--sizes",
        "1k,10k",
        "--counter",
        "chars",
      ]),
    );
    expect(cells.map((cell) => `${cell.engine} ${cell.counter} ${JSON.stringify(cell.workload)}`)).toEqual([
      'legacy chars-cached {"kind":"synthetic","messages":1000}',
      'legacy chars-cached {"kind":"synthetic","messages":10000}',
      'lossless chars-cached {"kind":"synthetic","messages":1000}',
      'lossless chars-cached {"kind":"synthetic","messages":10000}',
    ]);
  });

  it("ends the history before a user message and cuts the rest into whole turns", () => {
    const roles = [
      "user",
      "assistant",
      "toolResult",
      "assistant",
      "user",
      "assistant",
      "user",
      "user",
      "assistant",
    ];
    const entries: NewTranscriptEntry[] = roles.map((role, index) => ({
      type: "message",
      id: `e${index}`,
      message: { role, content: `m${index}`, timestamp: index } as unknown as AgentMessage,
    }));
    const split = splitReplay(entries, { historyMessages: 2, turns: 2 });
    expect(split.history.map((entry) => entry.id)).toEqual(["e0", "e1", "e2", "e3"]);
    const contents = split.turns.map((turn) =>
      turn.map((message) => (message as { content: string }).content),
    );
    expect(contents).toEqual([["m4", "m5"], ["m6"]]);
  });
});
