/**
 * `edit`: replace one exact occurrence of a text in a file. Refusing ambiguous matches keeps the
 * model from editing the wrong place; the answer shows the changed lines so it can check itself.
 */
import { readFile, writeFile } from "node:fs/promises";
import { type Static, Type } from "typebox";
import { fileAccessError, resolveToolPath } from "./paths.js";
import type { AgentTool } from "./tool.js";

/** Lines of each side shown in the summary before the rest is counted instead. */
const MAX_SUMMARY_LINES = 20;

const editParameters = Type.Object({
  path: Type.String({ description: "File path (relative to the workspace, or absolute)" }),
  oldText: Type.String({ description: "Exact text to replace; must occur exactly once" }),
  newText: Type.String({ description: "Replacement text" }),
});

export type EditToolParameters = Static<typeof editParameters>;

export interface EditToolDetails {
  path: string;
  /** 1-based line where the replaced text starts. */
  line: number;
  linesRemoved: number;
  linesAdded: number;
}

export interface EditToolOptions {
  workspaceDir: string;
  homeDir?: string;
}

/**
 * Creates the `edit` tool. Throws (as tool errors) "oldText not found in <path>", "oldText occurs
 * N times in <path>; …" and "File not found: <path>"; the file is written only after a unique
 * match. A file with CRLF line endings matches `oldText` written with LF, and keeps CRLF.
 */
export function createEditTool(options: EditToolOptions): AgentTool<typeof editParameters, EditToolDetails> {
  return {
    name: "edit",
    label: "Edit",
    description: "Replace one exact, unique occurrence of oldText with newText in a file.",
    parameters: editParameters,
    async execute(_toolCallId, params, signal) {
      if (params.oldText === "") throw new Error("oldText must not be empty");
      if (params.oldText === params.newText)
        throw new Error("oldText and newText are identical; nothing to change");
      const resolvedPath = resolveToolPath(params.path, options);
      const content = await readText(resolvedPath, signal);
      const { oldText, newText } = matchLineEndings(content, params.oldText, params.newText);
      const index = findUniqueOccurrence(content, oldText, resolvedPath);
      const updated = content.slice(0, index) + newText + content.slice(index + oldText.length);
      try {
        await writeFile(resolvedPath, updated, { encoding: "utf8", signal });
      } catch (error) {
        if (signal?.aborted) throw error;
        throw fileAccessError(error, resolvedPath);
      }
      const summary = summarizeChange({ content, updated, index, oldText, newText });
      return {
        content: [{ type: "text", text: `Edited ${resolvedPath}\n${summary.text}` }],
        details: {
          path: resolvedPath,
          line: summary.line,
          linesRemoved: summary.removed.length,
          linesAdded: summary.added.length,
        },
      };
    },
  };
}

async function readText(resolvedPath: string, signal: AbortSignal | undefined): Promise<string> {
  try {
    return await readFile(resolvedPath, { encoding: "utf8", signal });
  } catch (error) {
    if (signal?.aborted) throw error;
    throw fileAccessError(error, resolvedPath);
  }
}

/** Models write LF; a CRLF file would otherwise never match a multi-line `oldText`. */
function matchLineEndings(
  content: string,
  oldText: string,
  newText: string,
): { oldText: string; newText: string } {
  if (!content.includes("\r\n") || oldText.includes("\r") || !oldText.includes("\n"))
    return { oldText, newText };
  if (content.includes(oldText)) return { oldText, newText };
  return { oldText: oldText.replaceAll("\n", "\r\n"), newText: newText.replaceAll("\n", "\r\n") };
}

/** Index of the only occurrence of `oldText`; throws when there is none or more than one. */
function findUniqueOccurrence(content: string, oldText: string, resolvedPath: string): number {
  const first = content.indexOf(oldText);
  if (first === -1) throw new Error(`oldText not found in ${resolvedPath}`);
  let count = 1;
  for (let next = content.indexOf(oldText, first + oldText.length); next !== -1; ) {
    count++;
    next = content.indexOf(oldText, next + oldText.length);
  }
  if (count > 1) {
    throw new Error(
      `oldText occurs ${count} times in ${resolvedPath}; include more context to make it unique`,
    );
  }
  return first;
}

interface ChangeSummary {
  text: string;
  line: number;
  removed: string[];
  added: string[];
}

/**
 * A unified-diff-like hunk of the lines the replacement touched. Both sides run from the start of
 * the first touched line to the end of the last; lines the two sides share at either end are
 * dropped so the hunk shows only what changed.
 */
function summarizeChange(change: {
  content: string;
  updated: string;
  index: number;
  oldText: string;
  newText: string;
}): ChangeSummary {
  const { content, updated, index, oldText, newText } = change;
  const hunkStart = index === 0 ? 0 : content.lastIndexOf("\n", index - 1) + 1;
  const rest = content.slice(index + oldText.length);
  const restOfLine = rest.slice(0, rest.includes("\n") ? rest.indexOf("\n") : rest.length);
  const removed = splitHunk(content.slice(hunkStart, index + oldText.length) + restOfLine);
  const added = splitHunk(updated.slice(hunkStart, index + newText.length) + restOfLine);
  let line = countNewlines(content, hunkStart) + 1;
  while (removed.length > 0 && added.length > 0 && removed.at(-1) === added.at(-1)) {
    removed.pop();
    added.pop();
  }
  while (removed.length > 0 && added.length > 0 && removed[0] === added[0]) {
    removed.shift();
    added.shift();
    line++;
  }
  const header = `@@ -${line},${removed.length} +${line},${added.length} @@`;
  const text = [header, ...prefixLines(removed, "-"), ...prefixLines(added, "+")].join("\n");
  return { text, line, removed, added };
}

function splitHunk(hunk: string): string[] {
  return hunk.split("\n").map((line) => line.replace(/\r$/, ""));
}

function countNewlines(text: string, end: number): number {
  let count = 0;
  for (let index = text.indexOf("\n"); index !== -1 && index < end; index = text.indexOf("\n", index + 1))
    count++;
  return count;
}

function prefixLines(lines: string[], prefix: string): string[] {
  const shown = lines.slice(0, MAX_SUMMARY_LINES).map((line) => `${prefix}${line}`);
  if (lines.length > MAX_SUMMARY_LINES)
    shown.push(`${prefix}[... ${lines.length - MAX_SUMMARY_LINES} more lines]`);
  return shown;
}
