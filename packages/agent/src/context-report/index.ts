export { contextJsonSchema } from "./context-json-schema.js";
export {
  CONTEXT_MAP_GROUPS,
  type ContextMapData,
  type ContextMapGroup,
  type ContextMapGroupId,
  type ContextMapLeaf,
  contextMapData,
} from "./context-map-data.js";
export {
  type ContextMapLayoutOptions,
  type LaidOutGroup,
  type LaidOutLeaf,
  layoutContextMap,
  type Rect,
} from "./context-map-layout.js";
export type { ContextTextOptions } from "./context-sections.js";
export { DETAIL_TOP_COUNT, formatContextDetail } from "./format-context-detail.js";
export { formatContextHelp } from "./format-context-help.js";
export {
  type ContextJsonDocument,
  type ContextJsonSession,
  formatContextJson,
} from "./format-context-json.js";
export { formatContextList } from "./format-context-list.js";
export { type ContextMapPngOptions, renderContextMapPng } from "./render-context-map-png.js";
export {
  type ContextMapFrame,
  type ContextMapSvgOptions,
  contextMapFrame,
  leafLabelLines,
  renderContextMapSvg,
} from "./render-context-map-svg.js";
export { groupFillColor, leafFillColor, type Rgb } from "./svg-primitives.js";
export {
  type ContextMapFormat,
  contextMapCaption,
  contextMapSubtitle,
  contextMapUnavailableText,
  type WriteContextMapOptions,
  writeContextMap,
} from "./write-context-map.js";
