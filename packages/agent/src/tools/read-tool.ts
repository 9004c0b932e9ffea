/**
 * `read`: a file's text, a window of its lines, or an image. Large files come back in pieces so a
 * single read cannot flood the context; the note at the end says how to ask for the next piece.
 */
import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import type { ImageContent, TextContent } from "@mariozechner/pi-ai";
import { type Static, Type } from "typebox";
import { fileAccessError, resolveToolPath } from "./paths.js";
import type { AgentTool } from "./tool.js";

export const DEFAULT_READ_MAX_CHARS = 50_000;

const IMAGE_MIME_TYPES: Readonly<Record<string, string>> = {
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
};

/** Bytes inspected for a NUL when deciding a file is binary. */
const BINARY_SNIFF_BYTES = 8192;

const readParameters = Type.Object({
  path: Type.String({ description: "File path (relative to the workspace, or absolute)" }),
  offset: Type.Optional(Type.Integer({ minimum: 1, description: "First line to return (1-based)" })),
  limit: Type.Optional(Type.Integer({ minimum: 1, description: "Maximum number of lines" })),
});

export type ReadToolParameters = Static<typeof readParameters>;

export interface ReadToolDetails {
  path: string;
  kind: "text" | "image";
  /** First and last line returned (text only). */
  firstLine?: number;
  lastLine?: number;
  totalLines?: number;
  /** Set when lines remain after `lastLine`. */
  nextOffset?: number;
}

export interface ReadToolOptions {
  workspaceDir: string;
  homeDir?: string;
  /** Most characters of text one call returns; defaults to 50,000. */
  maxChars?: number;
}

/**
 * Creates the `read` tool. Throws (as tool errors) "File not found: <path>" for a missing file,
 * "<path> is a directory, not a file" for a directory, and a binary-file error for non-image
 * binaries; never returns more than `maxChars` characters of text.
 */
export function createReadTool(options: ReadToolOptions): AgentTool<typeof readParameters, ReadToolDetails> {
  const maxChars = options.maxChars ?? DEFAULT_READ_MAX_CHARS;
  return {
    name: "read",
    label: "Read",
    description:
      `Read a file. Returns up to ${maxChars} chars of text; use offset/limit (1-based lines) for large ` +
      "files. Images (png, jpg, gif, webp) are returned as images.",
    parameters: readParameters,
    async execute(_toolCallId, params, signal) {
      const resolvedPath = resolveToolPath(params.path, options);
      const buffer = await readFileBuffer(resolvedPath, signal);
      const mimeType = IMAGE_MIME_TYPES[path.extname(resolvedPath).toLowerCase()];
      if (mimeType !== undefined) return imageResult(resolvedPath, buffer, mimeType);
      if (buffer.subarray(0, BINARY_SNIFF_BYTES).includes(0)) {
        throw new Error(
          `${resolvedPath} looks like a binary file; read returns text and png/jpg/gif/webp images`,
        );
      }
      return textResult(resolvedPath, buffer.toString("utf8"), { ...params, maxChars });
    },
  };
}

async function readFileBuffer(resolvedPath: string, signal: AbortSignal | undefined): Promise<Buffer> {
  try {
    // stat first: readFile on a directory fails with a platform-dependent error.
    const stats = await stat(resolvedPath);
    if (stats.isDirectory()) throw Object.assign(new Error("is a directory"), { code: "EISDIR" });
    return await readFile(resolvedPath, { signal });
  } catch (error) {
    if (signal?.aborted) throw error;
    throw fileAccessError(error, resolvedPath);
  }
}

function imageResult(resolvedPath: string, buffer: Buffer, mimeType: string) {
  const content: (TextContent | ImageContent)[] = [
    { type: "text", text: `Read image ${resolvedPath} (${mimeType}, ${buffer.length} bytes)` },
    { type: "image", data: buffer.toString("base64"), mimeType },
  ];
  const details: ReadToolDetails = { path: resolvedPath, kind: "image" };
  return { content, details };
}

interface TextWindow {
  offset?: number;
  limit?: number;
  maxChars: number;
}

function textResult(resolvedPath: string, text: string, window: TextWindow) {
  const lines = splitLines(text);
  const firstLine = window.offset ?? 1;
  if (firstLine > Math.max(lines.length, 1)) {
    throw new Error(`offset ${firstLine} is past the end of ${resolvedPath} (${lines.length} lines)`);
  }
  const lastAllowed =
    window.limit === undefined ? lines.length : Math.min(lines.length, firstLine - 1 + window.limit);
  const { shown, truncatedLine } = takeWithinChars(lines, firstLine - 1, lastAllowed, window.maxChars);
  const lastLine = firstLine - 1 + shown.length;
  const notes: string[] = [];
  if (truncatedLine !== undefined) {
    notes.push(
      `[line ${lastLine} has ${truncatedLine} chars; only the first ${window.maxChars} are shown. ` +
        "Use exec to read it in parts]",
    );
  }
  const remaining = lines.length - lastLine;
  if (remaining > 0) notes.push(`[... ${remaining} more lines; use offset=${lastLine + 1} to continue]`);
  const body = lines.length === 0 ? "(empty file)" : shown.join("\n");
  const output = notes.length === 0 ? body : `${body}\n\n${notes.join("\n")}`;
  const details: ReadToolDetails = {
    path: resolvedPath,
    kind: "text",
    firstLine,
    lastLine,
    totalLines: lines.length,
    ...(remaining > 0 ? { nextOffset: lastLine + 1 } : {}),
  };
  return { content: [{ type: "text" as const, text: output }], details };
}

/** Lines of `text`; a final newline ends the last line instead of starting an empty one. */
function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (text.endsWith("\n")) lines.pop();
  return lines;
}

/**
 * Lines `[startIndex, endIndex)` that fit in `maxChars` (newlines counted). A first line that is
 * longer than the budget on its own is cut, so every call makes progress.
 */
function takeWithinChars(
  lines: string[],
  startIndex: number,
  endIndex: number,
  maxChars: number,
): { shown: string[]; truncatedLine?: number } {
  const shown: string[] = [];
  let used = 0;
  for (let index = startIndex; index < endIndex; index++) {
    const line = lines[index] ?? "";
    const cost = line.length + (shown.length > 0 ? 1 : 0);
    if (used + cost > maxChars) {
      if (shown.length === 0) return { shown: [line.slice(0, maxChars)], truncatedLine: line.length };
      break;
    }
    shown.push(line);
    used += cost;
  }
  return { shown };
}
