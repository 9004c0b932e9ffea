import { describe, expect, it } from "vitest";
import type { CellResult } from "../../cell.js";
import { latencySeries } from "../../charts/bench-charts.js";
import { lineChartSvg } from "../../charts/line-chart-svg.js";
import { parseBenchArgs } from "../../cli-options.js";
import { logLogSlope } from "../../metrics/log-log-slope.js";

describe("the log-log slope (M9)", () => {
  it("recovers the exponent of a power law", () => {
    expect(
      logLogSlope([
        [1_000, 2],
        [10_000, 2],
        [50_000, 2],
      ]),
    ).toBeCloseTo(0, 12);
    expect(
      logLogSlope([
        [1_000, 1],
        [10_000, 10],
        [100_000, 100],
      ]),
    ).toBeCloseTo(1, 12);
    expect(
      logLogSlope([
        [2, 4],
        [4, 16],
        [8, 64],
      ]),
    ).toBeCloseTo(2, 12);
  });

  it("needs two usable points", () => {
    expect(logLogSlope([[1_000, 5]])).toBeUndefined();
    expect(
      logLogSlope([
        [1_000, 5],
        [1_000, 7],
      ]),
    ).toBeUndefined();
    expect(
      logLogSlope([
        [0, 5],
        [1_000, 0],
      ]),
    ).toBeUndefined();
  });

  it("fits warm-turn latency of the speed suite's synthetic cells per engine", () => {
    const cell = (messages: number, p50Ms: number): CellResult => ({
      cell: {
        suite: "pipeline",
        engine: "legacy",
        counter: "chars",
        workload: { kind: "synthetic", messages },
        settings: parseBenchArgs([]).settings,
      },
      workloadName: `synthetic ${messages}`,
      metrics: { warmTurn: { p50Ms, p95Ms: p50Ms * 2 } },
      durationMs: 1,
    });
    const { series, slopes } = latencySeries([cell(10_000, 10), cell(1_000, 1)]);
    expect(series.map((item) => item.name)).toEqual(["legacy p50", "legacy p95"]);
    expect(series[0]?.points).toEqual([
      [1_000, 1],
      [10_000, 10],
    ]);
    expect(slopes).toHaveLength(2);
    for (const slope of slopes) expect(slope.slope).toBeCloseTo(1, 12);
  });
});

describe("the SVG line chart", () => {
  it("draws one polyline per series with a legend", () => {
    const svg = lineChartSvg({
      title: "Latency <ms>",
      xLabel: "messages",
      yLabel: "ms",
      xLog: true,
      yLog: true,
      series: [
        {
          name: "legacy p50",
          points: [
            [1_000, 1],
            [10_000, 3],
          ],
        },
        {
          name: "legacy p95",
          points: [
            [1_000, 2],
            [10_000, 9],
          ],
          group: "legacy p50",
          dashed: true,
        },
      ],
    });
    expect(svg.startsWith("<svg")).toBe(true);
    expect(svg.match(/<polyline /g)).toHaveLength(2);
    expect(svg).toContain("Latency &lt;ms&gt;");
    expect(svg).toContain('stroke-dasharray="6 4"');
    expect(svg).toContain(">10k<");
  });
});
