import { InvalidOptionError } from "@clew/core";
import type { ContextMapData } from "./context-map-data.js";
import { type LaidOutGroup, type LaidOutLeaf, layoutContextMap, type Rect } from "./context-map-layout.js";
import {
  formatCharsAndTokens,
  formatCharsAndTokensShort,
  formatInteger,
  formatShare,
} from "./format-figures.js";
import {
  fitText,
  groupFillColor,
  hexColor,
  leafFillColor,
  svgRect,
  svgText,
  textColorOn,
  textWidth,
} from "./svg-primitives.js";

export interface ContextMapSvgOptions {
  title: string;
  subtitle?: string;
  /** Pixels; at least 640. Default 1280. */
  width?: number;
  /** Pixels; at least 420. Default 860. */
  height?: number;
}

/** Where each part of the picture goes, from the canvas size. */
export interface ContextMapFrame {
  width: number;
  height: number;
  treemap: Rect;
  legend: Rect;
}

const PADDING = 24;
const HEADER_HEIGHT = 76;
const FOOTER_HEIGHT = 44;
const LEGEND_WIDTH = 280;
const LEGEND_GAP = 20;
const FONT_FAMILY = "DejaVu Sans, Liberation Sans, Arial, Helvetica, sans-serif";
const BACKGROUND = "#eef1f5";
const HEADER_FILL = "#141a22";
const GROUP_BORDER = "#0e1216";

const LEAF_LABEL = { padding: 6, nameSize: 13, nameLine: 16, sizeSize: 11, sizeLine: 14 } as const;
const GROUP_LABEL = { fontSize: 13, baseline: 17 } as const;

/** The rectangles `renderContextMapSvg` draws into for a canvas of this size. */
export function contextMapFrame(width = 1280, height = 860): ContextMapFrame {
  const top = HEADER_HEIGHT + 20;
  const bodyHeight = height - top - FOOTER_HEIGHT - 12;
  const legendX = width - PADDING - LEGEND_WIDTH;
  return {
    width,
    height,
    treemap: { x: PADDING, y: top, width: legendX - LEGEND_GAP - PADDING, height: bodyHeight },
    legend: { x: legendX, y: top, width: LEGEND_WIDTH, height: bodyHeight },
  };
}

/**
 * The context map as an SVG document: a header with `title` and `subtitle`, the squarified
 * treemap (group tiles with a dark border and a name strip when there is room, leaf tiles in
 * shades of the group colour, labelled `NAME` / `12,345 chars · ~3,087 tok` only when the text
 * fits), a legend (swatch, group, share, size) and a footer with the totals. Throws
 * `InvalidOptionError` for a canvas smaller than 640 × 420; never draws text outside its tile.
 */
export function renderContextMapSvg(data: ContextMapData, options: ContextMapSvgOptions): string {
  const width = options.width ?? 1280;
  const height = options.height ?? 860;
  if (!Number.isFinite(width) || width < 640) throw new InvalidOptionError("width", width, "a number ≥ 640");
  if (!Number.isFinite(height) || height < 420)
    throw new InvalidOptionError("height", height, "a number ≥ 420");
  const frame = contextMapFrame(width, height);
  const groups = layoutContextMap(data, frame.treemap);
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">`,
    `<g font-family="${FONT_FAMILY}">`,
    svgRect({ x: 0, y: 0, width, height }, `fill="${BACKGROUND}"`),
    ...headerParts(options, width),
    ...(groups.length === 0 ? emptyParts(frame.treemap) : groups.flatMap(groupParts)),
    ...legendParts(data, frame.legend),
    ...footerParts(data, frame),
    "</g>",
    "</svg>",
  ];
  return `${parts.join("\n")}\n`;
}

function headerParts(options: ContextMapSvgOptions, width: number): string[] {
  const title = fitText(options.title, width - 2 * PADDING, 26, "bold", 1) ?? "";
  const parts = [
    svgRect({ x: 0, y: 0, width, height: HEADER_HEIGHT }, `fill="${HEADER_FILL}"`),
    svgText(title, { x: PADDING, y: 38, fontSize: 26, weight: "bold", fill: "#f8fafc", className: "title" }),
  ];
  const subtitle =
    options.subtitle === undefined ? undefined : fitText(options.subtitle, width - 2 * PADDING, 14);
  if (subtitle !== undefined) {
    parts.push(
      svgText(subtitle, { x: PADDING, y: 62, fontSize: 14, fill: "#b0c4de", className: "subtitle" }),
    );
  }
  return parts;
}

function emptyParts(area: Rect): string[] {
  return [
    svgRect(area, 'fill="#ffffff" stroke="#d5dce4"'),
    svgText("Nothing tracked in this run.", {
      x: area.x + area.width / 2,
      y: area.y + area.height / 2,
      fontSize: 16,
      anchor: "middle",
      fill: "#334155",
    }),
  ];
}

function groupParts(laidOut: LaidOutGroup): string[] {
  const fill = groupFillColor(laidOut.group.color);
  const parts = [
    `<g class="group" data-group="${laidOut.group.id}">`,
    svgRect(laidOut.rect, `fill="${hexColor(fill)}" stroke="${GROUP_BORDER}" stroke-width="2"`),
  ];
  if (laidOut.hasHeader) parts.push(...groupHeaderParts(laidOut, textColorOn(fill)));
  for (const leaf of laidOut.leaves) parts.push(...leafParts(laidOut, leaf));
  parts.push("</g>");
  return parts;
}

/** Group name, then its size when that fits too. */
function groupHeaderParts(laidOut: LaidOutGroup, color: string): string[] {
  const room = laidOut.rect.width - 2 * LEAF_LABEL.padding - 2;
  const group = laidOut.group;
  const full = `${group.name} · ${formatCharsAndTokensShort(group.chars, group.tokens)}`;
  const label =
    textWidth(full, GROUP_LABEL.fontSize, "bold") <= room
      ? full
      : fitText(group.name, room, GROUP_LABEL.fontSize, "bold");
  if (label === undefined) return [];
  return [
    svgText(label, {
      x: laidOut.rect.x + LEAF_LABEL.padding + 1,
      y: laidOut.rect.y + GROUP_LABEL.baseline + 2,
      fontSize: GROUP_LABEL.fontSize,
      weight: "bold",
      fill: color,
      className: "group-label",
    }),
  ];
}

function leafParts(laidOut: LaidOutGroup, laidOutLeaf: LaidOutLeaf): string[] {
  const fill = leafFillColor(laidOut.group.color, laidOutLeaf.index);
  const rect = laidOutLeaf.rect;
  const parts = [
    svgRect(
      rect,
      `class="leaf" fill="${hexColor(fill)}" stroke="${GROUP_BORDER}" stroke-opacity="0.45" stroke-width="1"`,
    ),
  ];
  const label = leafLabelLines(laidOutLeaf);
  const color = textColorOn(fill);
  const x = rect.x + LEAF_LABEL.padding;
  let baseline = rect.y + LEAF_LABEL.padding + LEAF_LABEL.nameSize - 1;
  if (label.name !== undefined) {
    parts.push(
      svgText(label.name, {
        x,
        y: baseline,
        fontSize: LEAF_LABEL.nameSize,
        weight: "bold",
        fill: color,
        className: "leaf-name",
      }),
    );
    baseline += LEAF_LABEL.sizeLine + 1;
  }
  for (const line of label.size) {
    parts.push(
      svgText(line, { x, y: baseline, fontSize: LEAF_LABEL.sizeSize, fill: color, className: "leaf-size" }),
    );
    baseline += LEAF_LABEL.sizeLine;
  }
  return parts;
}

/**
 * The label a leaf tile can hold, measured with the per-character width estimate: the name with
 * `12,345 chars · ~3,087 tok` on one line, or with chars and tokens on two lines when the tile
 * is narrow but tall, else the name alone, else nothing. A long name is cut with `…` but keeps at
 * least four characters.
 */
export function leafLabelLines(laidOutLeaf: LaidOutLeaf): { name?: string; size: string[] } {
  const room = laidOutLeaf.rect.width - 2 * LEAF_LABEL.padding;
  const height = laidOutLeaf.rect.height - 2 * LEAF_LABEL.padding + 4;
  if (height < LEAF_LABEL.nameLine) return { size: [] };
  const name = fitText(laidOutLeaf.leaf.name, room, LEAF_LABEL.nameSize, "bold");
  if (name === undefined) return { size: [] };
  const { chars, tokens } = laidOutLeaf.leaf;
  const fits = (lines: string[]) =>
    height >= LEAF_LABEL.nameLine + lines.length * LEAF_LABEL.sizeLine &&
    lines.every((line) => textWidth(line, LEAF_LABEL.sizeSize) <= room);
  const oneLine = [formatCharsAndTokensShort(chars, tokens)];
  if (fits(oneLine)) return { name, size: oneLine };
  const twoLines = [`${formatInteger(chars)} chars`, `~${formatInteger(tokens)} tok`];
  if (fits(twoLines)) return { name, size: twoLines };
  return { name, size: [] };
}

const LEGEND = {
  inset: 16,
  textX: 44,
  groupRow: 50,
  compactGroupRow: 26,
  contributorRow: 20,
  noteHeight: 52,
} as const;

/** Swatch, name, share and size per group; then the largest leaves, which small tiles cannot label. */
function legendParts(data: ContextMapData, area: Rect): string[] {
  const parts = [
    svgRect(area, 'fill="#f8fafc" stroke="#d5dce4" stroke-width="1"'),
    svgText("Legend", {
      x: area.x + LEGEND.inset,
      y: area.y + 30,
      fontSize: 16,
      weight: "bold",
      fill: "#0f172a",
    }),
  ];
  const textRoom = area.width - LEGEND.textX - 12;
  const roomForRows = area.height - 50 - LEGEND.noteHeight;
  // A short canvas drops each group's size line before anything overlaps.
  const compact = data.groups.length * LEGEND.groupRow > roomForRows;
  const rowHeight = compact ? LEGEND.compactGroupRow : LEGEND.groupRow;
  data.groups.forEach((group, index) => {
    const top = area.y + 50 + index * rowHeight;
    const share = formatShare(group.chars, data.totalChars);
    const name = fitText(group.name, textRoom - textWidth(share, 13, "bold") - 8, 13, "bold", 1) ?? "";
    parts.push(
      svgRect(
        { x: area.x + LEGEND.inset, y: top, width: 18, height: 18 },
        `fill="${hexColor(group.color)}" stroke="#0f172a"`,
      ),
      svgText(name, {
        x: area.x + LEGEND.textX,
        y: top + 14,
        fontSize: 13,
        weight: "bold",
        fill: "#0f172a",
        className: "legend-name",
      }),
      svgText(share, {
        x: area.x + area.width - 12,
        y: top + 14,
        fontSize: 13,
        weight: "bold",
        anchor: "end",
        fill: "#0f172a",
      }),
    );
    if (!compact) {
      const size =
        fitText(formatCharsAndTokensShort(group.chars, group.tokens), textRoom, 12, "regular", 1) ?? "";
      parts.push(svgText(size, { x: area.x + LEGEND.textX, y: top + 32, fontSize: 12, fill: "#475569" }));
    }
  });
  const rowsBottom = area.y + 50 + data.groups.length * rowHeight;
  const contributorsTop = rowsBottom + 16;
  parts.push(
    ...contributorParts(data, {
      ...area,
      y: contributorsTop,
      height: area.y + area.height - contributorsTop,
    }),
  );
  if (rowsBottom + LEGEND.noteHeight <= area.y + area.height) {
    parts.push(
      svgText("Tile area is proportional", {
        x: area.x + LEGEND.inset,
        y: area.y + area.height - 32,
        fontSize: 12,
        fill: "#64748b",
      }),
      svgText("to characters sent.", {
        x: area.x + LEGEND.inset,
        y: area.y + area.height - 15,
        fontSize: 12,
        fill: "#64748b",
      }),
    );
  }
  return parts;
}

/** As many of the largest leaves as fit above the note, each `■ name … ~tok`. */
function contributorParts(data: ContextMapData, area: Rect): string[] {
  const rows = Math.min(12, Math.floor((area.height - LEGEND.noteHeight - 28) / LEGEND.contributorRow));
  if (rows < 3) return [];
  const leaves = data.groups
    .flatMap((group) => group.leaves.map((leaf, index) => ({ group, leaf, index })))
    .sort((left, right) => right.leaf.chars - left.leaf.chars)
    .slice(0, rows);
  const parts = [
    svgText("Largest contributors", {
      x: area.x + LEGEND.inset,
      y: area.y + 14,
      fontSize: 13,
      weight: "bold",
      fill: "#0f172a",
    }),
  ];
  leaves.forEach(({ group, leaf, index }, row) => {
    const baseline = area.y + 36 + row * LEGEND.contributorRow;
    const tokens = `~${formatInteger(leaf.tokens)} tok`;
    const nameRoom = area.width - 34 - 12 - textWidth(tokens, 12) - 8;
    parts.push(
      svgRect(
        { x: area.x + LEGEND.inset, y: baseline - 10, width: 10, height: 10 },
        `fill="${hexColor(leafFillColor(group.color, index))}" stroke="#0f172a" stroke-width="0.5"`,
      ),
      svgText(fitText(leaf.name, nameRoom, 12, "regular", 1) ?? "", {
        x: area.x + 34,
        y: baseline,
        fontSize: 12,
        fill: "#0f172a",
        className: "contributor",
      }),
      svgText(tokens, {
        x: area.x + area.width - 12,
        y: baseline,
        fontSize: 12,
        anchor: "end",
        fill: "#475569",
      }),
    );
  });
  return parts;
}

function footerParts(data: ContextMapData, frame: ContextMapFrame): string[] {
  const actual = data.contextTokens === null ? "unknown" : `${formatInteger(data.contextTokens)} tok`;
  const window = data.window > 0 ? `${formatInteger(data.window)} tok` : "unknown";
  const line = `Tracked: ${formatCharsAndTokens(data.totalChars, data.totalTokens)} · Provider context: ${actual} · Window: ${window}`;
  const text = fitText(line, frame.width - 2 * PADDING, 14, "regular", 1) ?? "";
  return [
    svgText(text, { x: PADDING, y: frame.height - 22, fontSize: 14, fill: "#334155", className: "footer" }),
  ];
}
