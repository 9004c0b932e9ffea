import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkGate } from "../../gate/check-gate.js";
import { type GateThresholds, parseGateThresholds } from "../../gate/gate-thresholds.js";
import { QUALITY_ROWS, UNGATED_ROW_KEYS } from "../../suites/quality/quality-rows.js";

const keys = { knownKeys: new Set(QUALITY_ROWS.map((row) => row.key)), ungatedKeys: UNGATED_ROW_KEYS };
const REPO_ROOT = join(import.meta.dirname, "../../..");

describe("gate thresholds", () => {
  it("reads the checked-in thresholds file", async () => {
    const { readFile } = await import("node:fs/promises");
    const path = join(REPO_ROOT, "bench/gate-thresholds.json");
    const thresholds = parseGateThresholds(await readFile(path, "utf8"), path, keys);
    expect(thresholds.preset).toBe("gate");
    expect(Object.keys(thresholds.engines)).toEqual([
      "legacy",
      "recency",
      "bm25",
      "lossless",
      "lossless-words",
    ]);
    // Issue #8's evidence-recall targets hold for the engine as it ships (the shipped word vectors).
    const lossless = thresholds.engines.lossless;
    expect(lossless?.m1Verbatim4k?.min).toBeGreaterThanOrEqual(0.8);
    expect(lossless?.m1Verbatim8k?.min).toBeGreaterThanOrEqual(0.9);
  });

  it("names the file and every bad field", () => {
    const text = JSON.stringify({
      preset: "gate",
      engines: {
        legacy: {
          m7Violations: { max: "0" },
          m10TurnP50: { max: 5 },
          noSuchMetric: { min: 1 },
          m1Covered8k: { min: 0.9, max: 0.5 },
          m3RoundTrip: {},
        },
      },
    });
    expect(() => parseGateThresholds(text, "thresholds.json", keys)).toThrow(
      new RegExp(
        [
          "thresholds.json: engines.legacy.m7Violations.max: expected a finite number",
          "thresholds.json: engines.legacy.m10TurnP50: never gated \\(a timing or a model-judged row\\)",
          "thresholds.json: engines.legacy.noSuchMetric: not a quality row key",
          "thresholds.json: engines.legacy.m1Covered8k: min 0.9 is above max 0.5",
          "thresholds.json: engines.legacy.m3RoundTrip: needs a min or a max",
        ].join("[^]*"),
      ),
    );
    expect(() => parseGateThresholds("{", "thresholds.json", keys)).toThrow(/thresholds.json: not JSON/);
  });
});

describe("the gate's verdict", () => {
  const thresholds: GateThresholds = {
    preset: "gate",
    engines: {
      legacy: { m1Covered8k: { min: 0.5 }, m7Violations: { max: 0 } },
      bm25: { m2RecallAt10: { min: 0.5 } },
    },
  };

  it("passes at the threshold and fails above the measured value, naming engine, metric, value and threshold", () => {
    const atThreshold = checkGate(
      thresholds,
      {
        legacy: { figures: { m1Covered8k: 0.5, m7Violations: 0 } },
        bm25: { figures: { m2RecallAt10: 0.5 } },
      },
      "gate.json",
    );
    expect(atThreshold).toEqual({ checked: 3, failures: [] });

    const raised: GateThresholds = { ...thresholds, engines: { legacy: { m1Covered8k: { min: 0.51 } } } };
    const verdict = checkGate(raised, { legacy: { figures: { m1Covered8k: 0.5 } } }, "gate.json");
    expect(verdict.failures.map((failure) => failure.message)).toEqual([
      "legacy: m1Covered8k = 0.5000 is below the minimum 0.5100 (gate.json)",
    ]);
  });

  it("fails a maximum exceeded, a figure that is n/a, and an engine whose cell failed", () => {
    const verdict = checkGate(
      thresholds,
      {
        legacy: { figures: { m1Covered8k: 0.7, m7Violations: 2 } },
        bm25: { error: "child exited with code 1" },
      },
      "gate.json",
    );
    expect(verdict.failures.map((failure) => failure.message)).toEqual([
      "legacy: m7Violations = 2 is above the maximum 0 (gate.json)",
      "bm25: m2RecallAt10 was not measured: the cell failed (child exited with code 1) (gate.json)",
    ]);
    const notApplicable = checkGate(
      { preset: "gate", engines: { legacy: { m2RecallAt10: { min: 0.1 } } } },
      { legacy: { figures: { m2RecallAt10: { na: "no recall tool" } } } },
      "gate.json",
    );
    expect(notApplicable.failures[0]?.message).toBe(
      "legacy: m2RecallAt10 is n/a (no recall tool) but has a threshold (gate.json)",
    );
  });
});

describe("npm run bench:gate", () => {
  let folder: string;
  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), "clew-gate-"));
  });
  afterAll(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  const runGate = (thresholds: unknown, args: readonly string[] = []) =>
    new Promise<{ code: number | null; output: string }>((resolve, reject) => {
      const path = join(folder, `${Math.random().toString(36).slice(2)}.json`);
      writeFile(path, JSON.stringify(thresholds))
        .then(() => {
          const child = spawn(
            process.execPath,
            ["--import", "tsx", "bench/gate.ts", "--thresholds", path, "--preset", "tiny", ...args],
            { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "pipe"] },
          );
          let output = "";
          child.stdout.on("data", (chunk: Buffer) => {
            output += chunk.toString("utf8");
          });
          child.stderr.on("data", (chunk: Buffer) => {
            output += chunk.toString("utf8");
          });
          child.on("error", reject);
          child.on("close", (code) => resolve({ code, output }));
        })
        .catch(reject);
    });

  it("exits 1 and names the engine, metric, value and threshold when a threshold is above the measured value", async () => {
    // --engine runs and checks recency only: bm25's threshold is not checked for a cell not run.
    const { code, output } = await runGate(
      {
        preset: "tiny",
        engines: {
          recency: { m4VerbatimN0: { min: 1.01 }, m7Violations: { max: 0 } },
          bm25: { m7Violations: { max: 0 } },
        },
      },
      ["--engine", "recency"],
    );
    expect(output).toMatch(/FAIL recency: m4VerbatimN0 = 1 is below the minimum 1\.0100/);
    expect(output).toContain("bench:gate failed: 1 of 2 thresholds");
    expect(code).toBe(1);
  });
});
