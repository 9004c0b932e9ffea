/**
 * A small line chart as SVG text: one `<polyline>` per series, axes with a few labelled ticks,
 * optional log scales, a legend. No dependencies; the output is deterministic for the same input.
 */

export interface ChartSeries {
  name: string;
  points: readonly (readonly [number, number])[];
  /** Series of one group share a colour (an engine's p50 and p95); default: the name. */
  group?: string;
  dashed?: boolean;
}

export interface LineChart {
  title: string;
  xLabel: string;
  yLabel: string;
  xLog?: boolean;
  yLog?: boolean;
  series: readonly ChartSeries[];
}

const WIDTH = 640;
const HEIGHT = 400;
const MARGIN = { left: 70, right: 150, top: 40, bottom: 50 };
const COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"];

/** Renders `chart`. Points with non-finite values (or ≤ 0 on a log axis) are left out. */
export function lineChartSvg(chart: LineChart): string {
  const scaleX = axisScale(chart.series, 0, chart.xLog === true, [MARGIN.left, WIDTH - MARGIN.right]);
  const scaleY = axisScale(chart.series, 1, chart.yLog === true, [HEIGHT - MARGIN.bottom, MARGIN.top]);
  const groups = [...new Set(chart.series.map((series) => series.group ?? series.name))];
  const lines = chart.series.map((series, index) => {
    const color = COLORS[groups.indexOf(series.group ?? series.name) % COLORS.length];
    const dash = series.dashed === true ? ' stroke-dasharray="6 4"' : "";
    const points = usablePoints(series.points, chart.xLog === true, chart.yLog === true)
      .map(([x, y]) => `${scaleX.at(x).toFixed(1)},${scaleY.at(y).toFixed(1)}`)
      .join(" ");
    const legendY = MARGIN.top + 18 * index;
    return [
      `<polyline fill="none" stroke="${color}" stroke-width="2"${dash} points="${points}"/>`,
      `<line x1="${WIDTH - MARGIN.right + 12}" y1="${legendY}" x2="${WIDTH - MARGIN.right + 32}" y2="${legendY}" stroke="${color}" stroke-width="2"${dash}/>`,
      `<text x="${WIDTH - MARGIN.right + 38}" y="${legendY + 4}">${escapeText(series.name)}</text>`,
    ].join("\n");
  });
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="sans-serif" font-size="11">`,
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="white"/>`,
    `<text x="${MARGIN.left}" y="22" font-size="14">${escapeText(chart.title)}</text>`,
    axes(scaleX, scaleY),
    `<text x="${(MARGIN.left + WIDTH - MARGIN.right) / 2}" y="${HEIGHT - 12}" text-anchor="middle">${escapeText(chart.xLabel)}</text>`,
    `<text transform="translate(16 ${(HEIGHT - MARGIN.bottom + MARGIN.top) / 2}) rotate(-90)" text-anchor="middle">${escapeText(chart.yLabel)}</text>`,
    ...lines,
    "</svg>",
    "",
  ].join("\n");
}

interface Scale {
  at(value: number): number;
  ticks: number[];
  range: [number, number];
}

function axisScale(
  series: readonly ChartSeries[],
  dimension: 0 | 1,
  log: boolean,
  range: [number, number],
): Scale {
  const values = series.flatMap((item) =>
    usablePoints(item.points, log, log).map((point) => point[dimension]),
  );
  let low = values.length === 0 ? 1 : Math.min(...values);
  let high = values.length === 0 ? 10 : Math.max(...values);
  if (!log) low = Math.min(0, low);
  if (high === low) high = low + (log ? low * 9 : 1);
  const project = (value: number) => (log ? Math.log10(value) : value);
  const [from, to] = [project(low), project(high)];
  const at = (value: number) => range[0] + ((project(value) - from) / (to - from)) * (range[1] - range[0]);
  return { at, ticks: log ? logTicks(low, high) : linearTicks(low, high), range };
}

function linearTicks(low: number, high: number): number[] {
  const step = 10 ** Math.floor(Math.log10((high - low) / 4 || 1));
  const stride = Math.ceil((high - low) / 5 / step) * step;
  const ticks: number[] = [];
  for (let value = Math.ceil(low / stride) * stride; value <= high + 1e-9; value += stride) ticks.push(value);
  return ticks;
}

/** 1, 2 and 5 times each power of ten within the range (just the powers when there are many). */
function logTicks(low: number, high: number): number[] {
  const decades = Math.ceil(Math.log10(high)) - Math.floor(Math.log10(low));
  const steps = decades > 3 ? [1] : [1, 2, 5];
  const ticks: number[] = [];
  for (let power = Math.floor(Math.log10(low)); power <= Math.ceil(Math.log10(high)); power++) {
    for (const step of steps) {
      const value = step * 10 ** power;
      if (value >= low / 1.0001 && value <= high * 1.0001) ticks.push(value);
    }
  }
  return ticks.length >= 2 ? ticks : [low, high];
}

function axes(scaleX: Scale, scaleY: Scale): string {
  const [left, right] = scaleX.range;
  const [bottom, top] = scaleY.range;
  const parts = [
    `<line x1="${left}" y1="${bottom}" x2="${right}" y2="${bottom}" stroke="black"/>`,
    `<line x1="${left}" y1="${bottom}" x2="${left}" y2="${top}" stroke="black"/>`,
  ];
  for (const tick of scaleX.ticks) {
    const x = scaleX.at(tick).toFixed(1);
    parts.push(`<line x1="${x}" y1="${bottom}" x2="${x}" y2="${bottom + 4}" stroke="black"/>`);
    parts.push(`<text x="${x}" y="${bottom + 16}" text-anchor="middle">${formatTick(tick)}</text>`);
  }
  for (const tick of scaleY.ticks) {
    const y = scaleY.at(tick).toFixed(1);
    parts.push(`<line x1="${left - 4}" y1="${y}" x2="${right}" y2="${y}" stroke="#ddd"/>`);
    parts.push(`<text x="${left - 6}" y="${Number(y) + 4}" text-anchor="end">${formatTick(tick)}</text>`);
  }
  return parts.join("\n");
}

function usablePoints(points: ChartSeries["points"], xLog: boolean, yLog: boolean) {
  return points.filter(
    ([x, y]) => Number.isFinite(x) && Number.isFinite(y) && (!xLog || x > 0) && (!yLog || y > 0),
  );
}

function formatTick(value: number): string {
  if (Math.abs(value) >= 1_000_000) return `${value / 1_000_000}M`;
  if (Math.abs(value) >= 1_000) return `${value / 1_000}k`;
  if (Math.abs(value) >= 10 || Number.isInteger(value)) return String(Math.round(value));
  return value.toPrecision(2);
}

function escapeText(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}
