import { InvalidOptionError } from "../errors.js";
import type { WorkspaceFile } from "./workspace-files.js";

/** Share of the per-file limit kept from the start and from the end of a file cut in the middle. */
export const TRUNCATION_HEAD_RATIO = 0.7;
export const TRUNCATION_TAIL_RATIO = 0.2;
/** Below this many chars of total budget left, no further file is started. */
export const MIN_FILE_BUDGET_CHARS = 64;

export type WorkspaceFileStatus = "OK" | "TRUNCATED" | "MISSING";
export type TruncationCause = "per-file-limit" | "total-limit";

/** One workspace file as injected into the prompt. */
export interface InjectedWorkspaceFile {
  name: string;
  path: string;
  status: WorkspaceFileStatus;
  /** Length of the file with trailing whitespace removed; 0 when missing. */
  rawChars: number;
  /** Length of the file's text in the prompt; 0 when missing. */
  injectedChars: number;
  /** What goes under the file's heading: the (cut) text, or the missing-file line. */
  content: string;
  /** Why a TRUNCATED file was cut; empty otherwise. */
  causes: TruncationCause[];
  /** Why an existing file could not be read (it is then MISSING). */
  problem?: string;
}

export interface WorkspaceFilesAnalysis {
  maxChars: number;
  totalMaxChars: number;
  truncatedFiles: number;
  /** Truncated files larger than the per-file limit. */
  perFileLimitFiles: number;
  /** Truncated files cut (or left out) because the total budget ran out. */
  totalLimitFiles: number;
  rawChars: number;
  injectedChars: number;
}

export interface TruncatedWorkspaceFiles {
  files: InjectedWorkspaceFile[];
  analysis: WorkspaceFilesAnalysis;
}

export interface WorkspaceFileLimits {
  /** Per-file cap (`agents.defaults.bootstrapMaxChars`). */
  maxChars: number;
  /** Cap over all files, spent in file order (`agents.defaults.bootstrapTotalMaxChars`). */
  totalMaxChars: number;
}

/**
 * Fits the workspace files into the prompt budget, in the given order. Each file loses its trailing
 * whitespace; a file longer than `min(maxChars, budget left)` keeps its head (70 %) and tail (20 %)
 * around a marker naming the file and the chars left out, never exceeding that limit. A missing
 * file costs its `[MISSING] Expected at: <path>` line. Once less than 64 chars of the total budget
 * remain, later files are left out (TRUNCATED, cause `total-limit`). Throws `InvalidOptionError`
 * when a limit is not a positive integer; never mutates `files`.
 */
export function truncateWorkspaceFiles(
  files: readonly WorkspaceFile[],
  limits: WorkspaceFileLimits,
): TruncatedWorkspaceFiles {
  assertPositiveInteger("agents.defaults.bootstrapMaxChars", limits.maxChars);
  assertPositiveInteger("agents.defaults.bootstrapTotalMaxChars", limits.totalMaxChars);
  let remaining = limits.totalMaxChars;
  const injected: InjectedWorkspaceFile[] = [];
  for (const file of files) {
    const result = fitFile(file, limits.maxChars, remaining);
    remaining -= result.content.length;
    injected.push(result);
  }
  return { files: injected, analysis: analyze(injected, limits) };
}

function fitFile(file: WorkspaceFile, maxChars: number, remaining: number): InjectedWorkspaceFile {
  if (file.missing) {
    const line = remaining > 0 ? `[MISSING] Expected at: ${file.path}`.slice(0, remaining) : "";
    const missing: InjectedWorkspaceFile = {
      ...identity(file),
      status: "MISSING",
      rawChars: 0,
      injectedChars: 0,
      content: line,
      causes: [],
    };
    if (file.problem !== undefined) missing.problem = file.problem;
    return missing;
  }
  const text = file.content.trimEnd();
  if (remaining < MIN_FILE_BUDGET_CHARS) {
    const causes: TruncationCause[] = text.length > 0 ? ["total-limit"] : [];
    if (text.length > maxChars) causes.unshift("per-file-limit");
    return fitted(file, text, "", causes);
  }
  const limit = Math.min(maxChars, remaining);
  if (text.length <= limit) return fitted(file, text, text, []);
  const causes: TruncationCause[] = [];
  if (text.length > maxChars) causes.push("per-file-limit");
  if (remaining < maxChars) causes.push("total-limit");
  return fitted(file, text, cutHeadAndTail(text, limit, file.name), causes);
}

function fitted(
  file: WorkspaceFile,
  raw: string,
  content: string,
  causes: TruncationCause[],
): InjectedWorkspaceFile {
  return {
    ...identity(file),
    status: causes.length > 0 ? "TRUNCATED" : "OK",
    rawChars: raw.length,
    injectedChars: content.length,
    content,
    causes,
  };
}

function identity(file: WorkspaceFile): { name: string; path: string } {
  return { name: file.name, path: file.path };
}

/**
 * Keeps the start and the end of `text` around a two-line marker so that the whole is at most
 * `limit` chars. The marker tells the model which file to read for the rest. When the limit is too
 * small for any marker, the head alone is kept.
 */
export function cutHeadAndTail(text: string, limit: number, fileName: string): string {
  if (text.length <= limit) return text;
  let headChars = Math.floor(limit * TRUNCATION_HEAD_RATIO);
  let tailChars = Math.floor(limit * TRUNCATION_TAIL_RATIO);
  // The marker states the kept sizes, so its length moves with them: a few rounds converge.
  for (let round = 0; round < 4; round++) {
    const head = sliceHead(text, headChars);
    const tail = sliceTail(text, tailChars);
    const joined = `${head}\n\n${truncationMarker(fileName, head.length, tail.length, text.length)}\n\n${tail}`;
    if (joined.length <= limit) return joined;
    const available = Math.max(0, limit - (joined.length - head.length - tail.length));
    const ratioTotal = TRUNCATION_HEAD_RATIO + TRUNCATION_TAIL_RATIO;
    headChars = Math.floor((available * TRUNCATION_HEAD_RATIO) / ratioTotal);
    tailChars = Math.floor((available * TRUNCATION_TAIL_RATIO) / ratioTotal);
  }
  return limit > 1 ? `${sliceHead(text, limit - 1)}…` : sliceHead(text, limit);
}

/** The marker between the kept head and tail of a truncated file. */
export function truncationMarker(
  fileName: string,
  headChars: number,
  tailChars: number,
  totalChars: number,
): string {
  const omitted = totalChars - headChars - tailChars;
  return [
    `[...truncated, read ${fileName} for full content...]`,
    `…(truncated ${fileName}: kept ${headChars}+${tailChars} chars of ${totalChars}; ${omitted} chars omitted)…`,
  ].join("\n");
}

// Cuts never split a UTF-16 surrogate pair, so the prompt stays valid text.
function sliceHead(text: string, chars: number): string {
  if (chars <= 0) return "";
  const end = isHighSurrogate(text.charCodeAt(chars - 1)) ? chars - 1 : chars;
  return text.slice(0, end);
}

function sliceTail(text: string, chars: number): string {
  if (chars <= 0) return "";
  const start = text.length - chars;
  return text.slice(isLowSurrogate(text.charCodeAt(start)) ? start + 1 : start);
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

function analyze(
  files: readonly InjectedWorkspaceFile[],
  limits: WorkspaceFileLimits,
): WorkspaceFilesAnalysis {
  const truncated = files.filter((file) => file.status === "TRUNCATED");
  return {
    maxChars: limits.maxChars,
    totalMaxChars: limits.totalMaxChars,
    truncatedFiles: truncated.length,
    perFileLimitFiles: truncated.filter((file) => file.causes.includes("per-file-limit")).length,
    totalLimitFiles: truncated.filter((file) => file.causes.includes("total-limit")).length,
    rawChars: files.reduce((sum, file) => sum + file.rawChars, 0),
    injectedChars: files.reduce((sum, file) => sum + file.injectedChars, 0),
  };
}

function assertPositiveInteger(option: string, value: number): void {
  if (!Number.isInteger(value) || value < 1)
    throw new InvalidOptionError(option, value, "a positive integer");
}
