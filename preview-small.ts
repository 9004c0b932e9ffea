import { writeFile } from "node:fs/promises";
import { contextMapData, renderContextMapSvg, renderContextMapPng, contextMapSubtitle } from "./packages/agent/src/context-report/index.js";
import { sampleRunReport } from "./packages/agent/test/context-report/fixtures.js";
const report = sampleRunReport({ toolCount: 5, engineAdditionChars: 6200, history: { messages: 3, chars: { user: 120, assistant: 900, toolResults: 0, summaries: 0, other: 40 }, tokens: { user: 30, assistant: 225, toolResults: 0, summaries: 0, other: 10 } } });
const svg = renderContextMapSvg(contextMapData(report), { title: "Context map — a short session with a very long title that should be cut", subtitle: contextMapSubtitle(report), width: 640, height: 420 });
await writeFile("/tmp/clew-context-map-small.png", renderContextMapPng(svg));
