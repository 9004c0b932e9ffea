import { type HierarchyRectangularNode, hierarchy, treemap, treemapSquarify } from "d3-hierarchy";
import type { ContextMapData, ContextMapGroup, ContextMapLeaf } from "./context-map-data.js";

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface LaidOutLeaf {
  leaf: ContextMapLeaf;
  /** Position in the group, largest first; the renderer shades by it. */
  index: number;
  rect: Rect;
}

export interface LaidOutGroup {
  group: ContextMapGroup;
  /** Position among the groups, largest first. */
  index: number;
  /** The group's whole tile; its area is proportional to the group's share of the total. */
  rect: Rect;
  /** Where the leaves are: `rect` less the border and, when `hasHeader`, the header strip. */
  inner: Rect;
  hasHeader: boolean;
  /** Each leaf's area is proportional to its share of the group, within `inner`. */
  leaves: LaidOutLeaf[];
}

export interface ContextMapLayoutOptions {
  /** Space between a group's edge and its leaves, for the group border. Default 3. */
  groupInset?: number;
  /** Height of a group's name strip. Default 24. */
  headerHeight?: number;
  /** A group gets a header only when its tile is at least this wide. Default 150. */
  headerMinWidth?: number;
  /** … and at least this much taller than the header. Default 48. */
  headerMinLeafHeight?: number;
}

type MapNode =
  | { kind: "root"; groups: ContextMapGroup[] }
  | { kind: "group"; group: ContextMapGroup }
  | { kind: "leaf"; leaf: ContextMapLeaf };

/**
 * Squarified treemap (d3-hierarchy `treemapSquarify`) of `data` in `area`: groups first, then
 * each group's leaves inside its inner rectangle, so group areas are proportional to group sizes
 * and leaf areas to their share of the group. Coordinates are not rounded. An empty map yields no
 * groups. Pure; never throws.
 */
export function layoutContextMap(
  data: ContextMapData,
  area: Rect,
  options: ContextMapLayoutOptions = {},
): LaidOutGroup[] {
  if (data.groups.length === 0 || area.width <= 0 || area.height <= 0) return [];
  const inset = options.groupInset ?? 3;
  const headerHeight = options.headerHeight ?? 24;
  const hasHeader = (node: HierarchyRectangularNode<MapNode>): boolean =>
    node.x1 - node.x0 >= (options.headerMinWidth ?? 150) &&
    node.y1 - node.y0 >= headerHeight + (options.headerMinLeafHeight ?? 48);

  const root = hierarchy<MapNode>({ kind: "root", groups: data.groups }, childrenOf)
    .sum((node) => (node.kind === "leaf" ? node.leaf.chars : 0))
    .sort((left, right) => (right.value ?? 0) - (left.value ?? 0));
  const laidOut = treemap<MapNode>()
    .tile(treemapSquarify)
    .size([area.width, area.height])
    .paddingOuter((node) => (node.depth === 1 ? inset : 0))
    .paddingTop((node) => (node.depth !== 1 ? 0 : hasHeader(node) ? inset + headerHeight : inset))(root);

  return (laidOut.children ?? []).flatMap((groupNode, groupIndex) => {
    if (groupNode.data.kind !== "group") return [];
    const header = hasHeader(groupNode);
    return [
      {
        group: groupNode.data.group,
        index: groupIndex,
        rect: toRect(groupNode, area),
        inner: innerRect(groupNode, area, inset, header ? inset + headerHeight : inset),
        hasHeader: header,
        leaves: (groupNode.children ?? []).flatMap((leafNode, leafIndex) =>
          leafNode.data.kind === "leaf"
            ? [{ leaf: leafNode.data.leaf, index: leafIndex, rect: toRect(leafNode, area) }]
            : [],
        ),
      },
    ];
  });
}

function childrenOf(node: MapNode): MapNode[] | undefined {
  if (node.kind === "root") return node.groups.map((group) => ({ kind: "group", group }));
  if (node.kind === "group") return node.group.leaves.map((leaf) => ({ kind: "leaf", leaf }));
  return undefined;
}

function toRect(node: HierarchyRectangularNode<MapNode>, area: Rect): Rect {
  return { x: area.x + node.x0, y: area.y + node.y0, width: node.x1 - node.x0, height: node.y1 - node.y0 };
}

/** The rectangle d3 tiled the group's children into (its padding, mirrored). */
function innerRect(node: HierarchyRectangularNode<MapNode>, area: Rect, inset: number, top: number): Rect {
  const width = Math.max(0, node.x1 - node.x0 - 2 * inset);
  const height = Math.max(0, node.y1 - node.y0 - top - inset);
  return { x: area.x + node.x0 + inset, y: area.y + node.y0 + top, width, height };
}
