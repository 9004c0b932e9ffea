import { describe, expect, it } from "vitest";
import { buildCells, parseBenchArgs, parseCount } from "../cli-options.js";
import { percentile, summarizeLatencies } from "../metrics/percentiles.js";

describe("bench arguments", () => {
  it("reads sizes with k and M suffixes and rejects what is not a whole count", () => {
    expect(parseBenchArgs(["--sizes", "10k,1.5k,2M,300"]).sizes).toEqual([10_000, 1_500, 2_000_000, 300]);
    expect(() => parseCount("--sizes", "0")).toThrow(/--sizes/);
    expect(() => parseCount("--sizes", "1.2345k")).toThrow(/whole number/);
  });

  it("names the option and the known values for an unknown engine, counter, suite or preset", () => {
    expect(() => parseBenchArgs(["--engine", "lossy"])).toThrow(/--engine.*legacy, recency, bm25, lossless/);
    expect(() => parseBenchArgs(["--counter", "bytes"])).toThrow(/--counter.*chars/);
    expect(() => parseBenchArgs(["--suite", "latency"])).toThrow(
      /--suite.*pipeline, quality, engine, preparation, speed, all/,
    );
    expect(() => parseBenchArgs(["--suite", "quality", "--preset", "huge"])).toThrow(
      /--preset.*full, gate, tiny/,
    );
  });

  it("reads speed as the pipeline suite and all as every suite", () => {
    expect(parseBenchArgs(["--suite", "speed"]).suites).toEqual(["pipeline"]);
    expect(parseBenchArgs(["--suite", "all"]).suites).toEqual([
      "pipeline",
      "quality",
      "engine",
      "preparation",
    ]);
    expect(parseBenchArgs(["--suite", "quality,speed,pipeline"]).suites).toEqual(["quality", "pipeline"]);
  });

  it("builds one quality cell per engine on the quality preset, counted with o200k", () => {
    const quality = (args: string[]) =>
      buildCells(parseBenchArgs(["--suite", "quality", "--engine", "legacy,bm25", ...args])).map(
        (cell) => `${cell.engine} ${cell.counter} ${JSON.stringify(cell.workload)}`,
      );
    expect(quality([])).toEqual([
      'legacy o200k-cached {"kind":"quality","preset":"full"}',
      'bm25 o200k-cached {"kind":"quality","preset":"full"}',
    ]);
    expect(quality(["--quick"])[0]).toContain('"preset":"gate"');
    expect(quality(["--preset", "tiny", "--counter", "chars"])[0]).toBe(
      'legacy o200k-cached {"kind":"quality","preset":"tiny"}',
    );
  });

  it("builds one cell per engine, counter and workload, pi sessions first", () => {
    const options = parseBenchArgs(["--counter", "chars,chars-cached", "--sizes", "1k"]);
    const cells = buildCells(options);
    expect(cells.map((cell) => `${cell.counter} ${cell.workload.kind}`)).toEqual([
      "chars pi",
      "chars pi",
      "chars synthetic",
      "chars-cached pi",
      "chars-cached pi",
      "chars-cached synthetic",
    ]);
    expect(
      buildCells(parseBenchArgs(["--skip-pi", "--sizes", "1k"])).map((cell) => cell.workload.kind),
    ).toEqual(["synthetic"]);
  });

  it("reads the pi sessions folder from CLEW_PI_SESSIONS_DIR", () => {
    expect(parseBenchArgs([], { CLEW_PI_SESSIONS_DIR: "/data/pi" }).settings.piSessionsDir).toBe("/data/pi");
  });
});

describe("percentiles", () => {
  it("interpolates between the nearest ranks", () => {
    expect(percentile([4, 1, 3, 2], 0.5)).toBe(2.5);
    expect(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11], 0.95)).toBe(10.5);
    expect(summarizeLatencies([5])).toMatchObject({ samples: 1, p50Ms: 5, p95Ms: 5, minMs: 5, maxMs: 5 });
  });

  it("refuses an empty sample list", () => {
    expect(() => summarizeLatencies([])).toThrow(RangeError);
  });
});
