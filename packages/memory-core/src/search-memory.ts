import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { Bm25Index, tokenize } from "./bm25.js";
import { listMemoryFiles, MAX_NOTE_BYTES } from "./memory-files.js";
import { type NoteParagraph, splitParagraphs } from "./paragraphs.js";

export const DEFAULT_MAX_RESULTS = 6;
export const MAX_RESULTS_LIMIT = 25;
/** Longest snippet a hit returns; `memory_get` reads the rest. */
export const SNIPPET_MAX_CHARS = 700;

export interface MemorySearchHit {
  /** Workspace-relative note path. */
  path: string;
  startLine: number;
  endLine: number;
  score: number;
  snippet: string;
  heading?: string;
}

export interface MemorySearchResult {
  hits: MemorySearchHit[];
  filesSearched: number;
  /** Notes left out because they are larger than `MAX_NOTE_BYTES`. */
  skippedFiles: string[];
}

export interface SearchMemoryOptions {
  workspaceDir: string;
  query: string;
  maxResults?: number;
  /** Hits scoring at or below this are dropped. Default 0. */
  minScore?: number;
  signal?: AbortSignal;
}

interface IndexedParagraph extends NoteParagraph {
  path: string;
}

/**
 * Ranks every paragraph of the workspace's notes against `query` with BM25 (the heading above a
 * paragraph counts as part of it) and returns the best `maxResults`. The index is built per
 * call: notes change between calls and a workspace's notes are small. Rejects only on file-system
 * errors other than a missing file, or when `signal` aborts.
 */
export async function searchMemory(options: SearchMemoryOptions): Promise<MemorySearchResult> {
  const files = await listMemoryFiles(options.workspaceDir);
  const paragraphs: IndexedParagraph[] = [];
  const skippedFiles: string[] = [];
  for (const path of files) {
    options.signal?.throwIfAborted();
    const text = await readNote(join(options.workspaceDir, path));
    if (text === undefined) skippedFiles.push(path);
    else for (const paragraph of splitParagraphs(text)) paragraphs.push({ ...paragraph, path });
  }
  const index = new Bm25Index(
    paragraphs.map((paragraph) => tokenize(`${paragraph.heading ?? ""}\n${paragraph.text}`)),
  );
  const limit = Math.min(
    Math.max(1, Math.floor(options.maxResults ?? DEFAULT_MAX_RESULTS)),
    MAX_RESULTS_LIMIT,
  );
  const minScore = options.minScore ?? 0;
  const hits = index
    .search(tokenize(options.query))
    .filter((match) => match.score > minScore)
    .slice(0, limit)
    .flatMap((match) => {
      const paragraph = paragraphs[match.index];
      return paragraph === undefined ? [] : [toHit(paragraph, match.score)];
    });
  return { hits, filesSearched: files.length - skippedFiles.length, skippedFiles };
}

function toHit(paragraph: IndexedParagraph, score: number): MemorySearchHit {
  const snippet =
    paragraph.text.length <= SNIPPET_MAX_CHARS
      ? paragraph.text
      : `${paragraph.text.slice(0, SNIPPET_MAX_CHARS)}… [memory_get ${paragraph.path} from ${paragraph.startLine} for the rest]`;
  const hit: MemorySearchHit = {
    path: paragraph.path,
    startLine: paragraph.startLine,
    endLine: paragraph.endLine,
    score: Math.round(score * 1000) / 1000,
    snippet,
  };
  if (paragraph.heading !== undefined) hit.heading = paragraph.heading;
  return hit;
}

/** The note's text, or undefined when it is too large to index; a note removed meanwhile is empty. */
async function readNote(path: string): Promise<string | undefined> {
  try {
    if ((await stat(path)).size > MAX_NOTE_BYTES) return undefined;
    return await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return "";
    throw error;
  }
}
