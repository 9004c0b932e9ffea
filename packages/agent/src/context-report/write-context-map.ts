import { randomUUID } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type ContextRunReport, InvalidOptionError } from "@clew/core";
import { type ContextMapData, contextMapData } from "./context-map-data.js";
import { formatCharsAndTokens, formatInteger } from "./format-figures.js";
import { type ContextMapPngOptions, renderContextMapPng } from "./render-context-map-png.js";
import { renderContextMapSvg } from "./render-context-map-svg.js";

export type ContextMapFormat = "png" | "svg";

export interface WriteContextMapOptions extends ContextMapPngOptions {
  format: ContextMapFormat;
  /** Created when missing. */
  outDir: string;
  /** The file name's unique part; default a random UUID. */
  createId?: () => string;
  /** Default `Context map`. */
  title?: string;
}

/** What `/context map` answers when the session has no run report yet. */
export function contextMapUnavailableText(): string {
  return "Context map unavailable: no run of this session has been recorded yet. Send a message, then run /context map again.";
}

/** `run · provider/model · engine x · session key · 2026-05-01 12:00 UTC`, parts the report has. */
export function contextMapSubtitle(report: ContextRunReport): string {
  const model = [report.provider, report.model].filter((part) => part !== undefined).join("/");
  const time = new Date(report.generatedAt).toISOString().slice(0, 16).replace("T", " ");
  return [
    report.source,
    model === "" ? undefined : model,
    report.engine === undefined ? undefined : `engine ${report.engine.effective}`,
    report.sessionKey === undefined ? undefined : `session ${report.sessionKey}`,
    `${time} UTC`,
  ]
    .filter((part): part is string => part !== undefined)
    .join(" · ");
}

/** The text sent with the image: what it shows and the totals, one fact a line. */
export function contextMapCaption(data: ContextMapData): string {
  const history = data.groups.find((group) => group.id === "history");
  return [
    "Context map",
    `Source: ${data.source}`,
    `Tracked: ${formatCharsAndTokens(data.totalChars, data.totalTokens)}`,
    `History: ${history === undefined ? "0 chars (~0 tok)" : formatCharsAndTokens(history.chars, history.tokens)}`,
    `Provider context: ${data.contextTokens === null ? "unavailable" : `${formatInteger(data.contextTokens)} tok`}`,
  ].join("\n");
}

/**
 * Draws the map of a run report and writes it to `<outDir>/clew-context-map-<id>.<format>`;
 * returns the path. Throws `InvalidOptionError` for an estimate (the map shows only what a run
 * really sent; answer `contextMapUnavailableText()` instead) or an unknown format, and the file
 * system's error when the folder cannot be written. Never overwrites another map: ids are unique.
 */
export async function writeContextMap(
  report: ContextRunReport,
  options: WriteContextMapOptions,
): Promise<string> {
  if (report.source !== "run") {
    throw new InvalidOptionError(
      "report.source",
      report.source,
      '"run" (the map is drawn only from a recorded run)',
    );
  }
  if (options.format !== "png" && options.format !== "svg") {
    throw new InvalidOptionError("format", options.format, '"png" or "svg"');
  }
  const svg = renderContextMapSvg(contextMapData(report), {
    title: options.title ?? "Context map",
    subtitle: contextMapSubtitle(report),
  });
  const content = options.format === "svg" ? svg : renderContextMapPng(svg, options);
  await mkdir(options.outDir, { recursive: true });
  const path = join(
    options.outDir,
    `clew-context-map-${(options.createId ?? randomUUID)()}.${options.format}`,
  );
  await writeFile(path, content, { flag: "wx" });
  return path;
}
