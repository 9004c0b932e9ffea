/**
 * `memory_search` and `memory_get`: pi `AgentTool`s over the workspace's notes. They throw on
 * failure (the runner turns that into an `isError` result the model reads) and never read a file
 * that is not a note.
 */
import { readFile } from "node:fs/promises";
import type { AgentTool } from "@mariozechner/pi-agent-core";
import { type Static, Type } from "typebox";
import { isMissing, MEMORY_DIR_NAME, resolveMemoryPath } from "./memory-files.js";
import {
  DEFAULT_MAX_RESULTS,
  MAX_RESULTS_LIMIT,
  type MemorySearchHit,
  searchMemory,
} from "./search-memory.js";

export const MEMORY_SEARCH_TOOL = "memory_search";
export const MEMORY_GET_TOOL = "memory_get";
/** Most characters one `memory_get` returns. */
export const MEMORY_GET_MAX_CHARS = 20_000;

export interface MemoryToolOptions {
  /** The agent workspace holding `MEMORY.md` and `memory/`. */
  workspaceDir: string;
}

const searchParameters = Type.Object({
  query: Type.String({ minLength: 1, description: "Words to look for in the notes" }),
  maxResults: Type.Optional(
    Type.Integer({ minimum: 1, maximum: MAX_RESULTS_LIMIT, description: `Default ${DEFAULT_MAX_RESULTS}` }),
  ),
  minScore: Type.Optional(Type.Number({ minimum: 0, description: "Drop hits scoring at or below this" })),
});

const getParameters = Type.Object({
  path: Type.String({ description: `MEMORY.md or ${MEMORY_DIR_NAME}/<name>.md, relative to the workspace` }),
  from: Type.Optional(Type.Integer({ minimum: 1, description: "First line to return (1-based)" })),
  lines: Type.Optional(Type.Integer({ minimum: 1, description: "How many lines to return" })),
});

export type MemorySearchParameters = Static<typeof searchParameters>;
export type MemoryGetParameters = Static<typeof getParameters>;

export interface MemorySearchDetails {
  query: string;
  hits: MemorySearchHit[];
  filesSearched: number;
}

export interface MemoryGetDetails {
  path: string;
  from: number;
  to: number;
  totalLines: number;
  /** Set when lines remain after `to`. */
  nextFrom?: number;
}

/** Ranked full-text search over `MEMORY.md` and `memory/*.md` (BM25 over paragraphs). */
export function createMemorySearchTool(
  options: MemoryToolOptions,
): AgentTool<typeof searchParameters, MemorySearchDetails> {
  return {
    name: MEMORY_SEARCH_TOOL,
    label: "Memory search",
    description:
      `Search durable notes (MEMORY.md and ${MEMORY_DIR_NAME}/*.md) by words; returns the best paragraphs ` +
      "with their file and line range. Use memory_get to read more around a hit.",
    parameters: searchParameters,
    async execute(_toolCallId, params, signal) {
      const result = await searchMemory({
        workspaceDir: options.workspaceDir,
        query: params.query,
        ...(params.maxResults === undefined ? {} : { maxResults: params.maxResults }),
        ...(params.minScore === undefined ? {} : { minScore: params.minScore }),
        ...(signal === undefined ? {} : { signal }),
      });
      const details: MemorySearchDetails = {
        query: params.query,
        hits: result.hits,
        filesSearched: result.filesSearched,
      };
      return { content: [{ type: "text", text: formatSearch(params.query, result) }], details };
    },
  };
}

function formatSearch(
  query: string,
  result: { hits: MemorySearchHit[]; filesSearched: number; skippedFiles: string[] },
): string {
  const skipped =
    result.skippedFiles.length === 0
      ? ""
      : `\n(skipped, too large to search: ${result.skippedFiles.join(", ")})`;
  if (result.filesSearched === 0 && result.skippedFiles.length === 0) {
    return `No notes yet: MEMORY.md and ${MEMORY_DIR_NAME}/*.md do not exist in the workspace.`;
  }
  if (result.hits.length === 0) {
    return `No notes match "${query}" (${result.filesSearched} files searched).${skipped}`;
  }
  const blocks = result.hits.map((hit, index) => {
    const heading = hit.heading === undefined ? "" : ` under "${hit.heading}"`;
    return `${index + 1}. ${hit.path}:${hit.startLine}-${hit.endLine}${heading} (score ${hit.score})\n${hit.snippet}`;
  });
  return `${blocks.join("\n\n")}${skipped}`;
}

/** Reads a note, or a range of its lines. */
export function createMemoryGetTool(
  options: MemoryToolOptions,
): AgentTool<typeof getParameters, MemoryGetDetails> {
  return {
    name: MEMORY_GET_TOOL,
    label: "Memory get",
    description:
      `Read a note (MEMORY.md or ${MEMORY_DIR_NAME}/*.md), whole or from a line: pass from and lines ` +
      "to read the range memory_search pointed at.",
    parameters: getParameters,
    async execute(_toolCallId, params, signal) {
      const note = resolveMemoryPath(options.workspaceDir, params.path);
      let text: string;
      try {
        text = await readFile(note.absolute, { encoding: "utf8", signal });
      } catch (error) {
        if (signal?.aborted || !isMissing(error)) throw error;
        throw new Error(`No note at ${note.relative}; memory_search lists the notes that exist`);
      }
      return lineWindow(note.relative, text, params);
    },
  };
}

function lineWindow(path: string, text: string, params: MemoryGetParameters) {
  const lines = text === "" ? [] : text.replace(/\r?\n$/, "").split(/\r?\n/);
  const from = params.from ?? 1;
  if (from > Math.max(lines.length, 1)) {
    throw new Error(`from ${from} is past the end of ${path} (${lines.length} lines)`);
  }
  const last = Math.min(lines.length, params.lines === undefined ? lines.length : from - 1 + params.lines);
  const shown: string[] = [];
  let used = 0;
  for (let index = from - 1; index < last; index++) {
    const line = lines[index] ?? "";
    if (shown.length > 0 && used + line.length + 1 > MEMORY_GET_MAX_CHARS) break;
    shown.push(line.slice(0, MEMORY_GET_MAX_CHARS));
    used += line.length + 1;
  }
  const to = from - 1 + shown.length;
  const details: MemoryGetDetails = { path, from, to, totalLines: lines.length };
  const remaining = lines.length - to;
  let output = lines.length === 0 ? "(empty note)" : shown.join("\n");
  if (remaining > 0) {
    details.nextFrom = to + 1;
    output += `\n\n[... ${remaining} more lines; memory_get ${path} from ${to + 1} to continue]`;
  }
  return { content: [{ type: "text" as const, text: output }], details };
}

/** Both memory tools for one workspace. */
export function createMemoryTools(options: MemoryToolOptions) {
  return [createMemorySearchTool(options), createMemoryGetTool(options)] as const;
}
