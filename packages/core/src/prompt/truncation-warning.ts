import type { InjectedWorkspaceFile } from "./truncate-workspace-files.js";

/** `agents.defaults.bootstrapPromptTruncationWarning`. */
export type TruncationWarningMode = "off" | "once" | "always";
export const TRUNCATION_WARNING_MODES: readonly TruncationWarningMode[] = ["off", "once", "always"];

/**
 * What the `once` mode remembers between runs. The caller persists it with the session (for
 * example in the session's settings) and passes it back on the next run; it is plain JSON.
 */
export interface TruncationWarningState {
  /** Signature of the truncated-file set last warned about; unset when nothing is truncated. */
  lastSignature?: string;
}

export interface TruncationWarningDecision {
  show: boolean;
  /** Signature of this run's truncated-file set; undefined when nothing is truncated. */
  signature: string | undefined;
  /** The state to persist for the next run. */
  state: TruncationWarningState;
}

/** How many truncated files the warning names before summing up the rest. */
const NAMED_FILES = 3;

/**
 * The identity of a set of truncated files: their names and paths, sorted. Sizes are left out on
 * purpose, so editing a file that stays truncated does not repeat a `once` warning.
 */
export function truncationSignature(files: readonly InjectedWorkspaceFile[]): string | undefined {
  const truncated = files
    .filter((file) => file.status === "TRUNCATED")
    .map((file) => `${file.name}\u0000${file.path}`)
    .sort();
  return truncated.length === 0 ? undefined : JSON.stringify(truncated);
}

/**
 * Decides whether this run's prompt carries the truncation warning. `off`: never. `always`: on
 * every run with a truncated file. `once`: when the set of truncated files differs from the set
 * last warned about; a run without truncation clears the memory, so a set that comes back after
 * being fixed is warned about again. Pure: never mutates `state`.
 */
export function decideTruncationWarning(options: {
  mode: TruncationWarningMode;
  files: readonly InjectedWorkspaceFile[];
  state?: TruncationWarningState;
}): TruncationWarningDecision {
  const signature = truncationSignature(options.files);
  const previous = options.state ?? {};
  if (options.mode === "off") return { show: false, signature, state: { ...previous } };
  if (signature === undefined) return { show: false, signature, state: {} };
  const show = options.mode === "always" || previous.lastSignature !== signature;
  return { show, signature, state: { lastSignature: signature } };
}

/** The warning block rendered under "# Project Context". */
export function renderTruncationWarning(files: readonly InjectedWorkspaceFile[]): string {
  const truncated = files.filter((file) => file.status === "TRUNCATED");
  const lines = [
    "[Bootstrap truncation warning]",
    "Some workspace files were truncated before injection into Project Context.",
    "Treat Project Context as partial and read the relevant files directly when details seem missing.",
  ];
  for (const file of truncated.slice(0, NAMED_FILES)) {
    const causes = file.causes
      .map((cause) => (cause === "per-file-limit" ? "max/file" : "max/total"))
      .join(", ");
    lines.push(`- ${file.name}: ${file.rawChars} raw -> ${file.injectedChars} injected chars (${causes})`);
  }
  if (truncated.length > NAMED_FILES)
    lines.push(`- +${truncated.length - NAMED_FILES} more truncated file(s)`);
  return lines.join("\n");
}
