/**
 * The blocks `/context list` and `/context detail` share (reference §2.6, adapted to Clew: no
 * sandbox line, a context-engine line, history by kind). Each returns its lines without a
 * trailing blank; the formatters put the blanks between blocks. All pure; none throws.
 */
import type { ContextRunReport } from "@clew/core";
import { formatCharsAndTokens, formatInteger } from "./format-figures.js";

/** What the caller knows that the report does not. */
export interface ContextTextOptions {
  /** The context window of the session's model, for the session tokens line. */
  window: number;
  /** Shown when the report has no `workspaceDir`. */
  workspaceDir?: string;
  /**
   * Prompt tokens of the session's last run as the caller knows them (the sessions index);
   * default: the report's `session.contextTokens`. `null` reads `unknown`.
   */
  sessionTokens?: number | null;
}

export const FILE_CONFIG_KEY = "agents.defaults.bootstrapMaxChars";
export const TOTAL_CONFIG_KEY = "agents.defaults.bootstrapTotalMaxChars";

/** Header through the system prompt line. */
export function headLines(report: ContextRunReport, options: ContextTextOptions, title: string): string[] {
  const prompt = report.systemPrompt;
  const lines = [
    title,
    `Workspace: ${report.workspaceDir ?? options.workspaceDir ?? "(unknown)"}`,
    `Bootstrap max/file: ${formatInteger(report.bootstrap.maxChars)} chars`,
    `Bootstrap max/total: ${formatInteger(report.bootstrap.totalMaxChars)} chars`,
  ];
  if (report.engine !== undefined) lines.push(engineLine(report.engine));
  lines.push(
    `System prompt (${report.source}): ${formatCharsAndTokens(prompt.chars)} ` +
      `(Project Context ${formatCharsAndTokens(prompt.projectContextChars)})`,
  );
  return lines;
}

function engineLine(engine: { configured: string; effective: string }): string {
  if (engine.configured === engine.effective || engine.configured === "") {
    return `Context engine: ${engine.effective}`;
  }
  return `Context engine: ${engine.effective} (configured: ${engine.configured})`;
}

/** The over-limit warning, or no lines when no file was truncated. */
export function truncationWarningLines(report: ContextRunReport): string[] {
  const truncated = report.injectedWorkspaceFiles.filter((file) => file.status === "TRUNCATED");
  if (truncated.length === 0) return [];
  const rawChars = sum(truncated.map((file) => file.rawChars));
  const injectedChars = sum(truncated.map((file) => file.injectedChars));
  const overFile = truncated.filter((file) =>
    truncationCauses(file, report).includes("per-file-limit"),
  ).length;
  const overTotal = truncated.filter((file) => truncationCauses(file, report).includes("total-limit")).length;
  const causes = [
    overFile > 0 ? `${overFile} file(s) exceeded max/file` : undefined,
    overTotal > 0 ? `${overTotal} file(s) hit max/total` : undefined,
  ].filter((cause): cause is string => cause !== undefined);
  return [
    `⚠ Bootstrap context is over configured limits: ${truncated.length} file(s) truncated ` +
      `(${formatInteger(rawChars)} raw chars -> ${formatInteger(injectedChars)} injected chars).`,
    `Causes: ${causes.join("; ")}.`,
    `Tip: raise ${FILE_CONFIG_KEY} or ${TOTAL_CONFIG_KEY}, or shorten the file(s).`,
  ];
}

type InjectedFile = ContextRunReport["injectedWorkspaceFiles"][number];

/** The report's causes; reports without them get the per-file cause when the raw file was larger. */
function truncationCauses(
  file: InjectedFile,
  report: ContextRunReport,
): ReadonlyArray<"per-file-limit" | "total-limit"> {
  if (file.causes !== undefined) return file.causes;
  return file.rawChars > report.bootstrap.maxChars ? ["per-file-limit"] : ["total-limit"];
}

/** One line per injected workspace file, in prompt order. */
export function injectedFileLines(report: ContextRunReport): string[] {
  const files = report.injectedWorkspaceFiles;
  if (files.length === 0) return ["Injected workspace files:", "- (none)"];
  return [
    "Injected workspace files:",
    ...files.map((file) => {
      if (file.status === "MISSING") return `- ${file.name}: MISSING | raw 0 | injected 0`;
      return (
        `- ${file.name}: ${file.status} | raw ${formatCharsAndTokens(file.rawChars)} | ` +
        `injected ${formatCharsAndTokens(file.injectedChars)}`
      );
    }),
  ];
}

/** `Skills list (system prompt text): … (<n> skills)`, counting distinct names. */
export function skillsListLine(report: ContextRunReport): string {
  const count = new Set(report.skills.entries.map((entry) => entry.name)).size;
  return `Skills list (system prompt text): ${formatCharsAndTokens(report.skills.promptChars)} (${count} skills)`;
}

export function toolListLines(report: ContextRunReport): string[] {
  return [
    `Tool list (system prompt text): ${formatCharsAndTokens(report.tools.listChars)}`,
    `Tool schemas (JSON): ${formatCharsAndTokens(report.tools.schemaChars)} (counts toward context; not shown as text)`,
  ];
}

/** `<label>: a, b, … (+K more)` capped at `limit` names, or `<label>: (none)`. */
export function namesLine(label: string, names: readonly string[], limit: number): string {
  if (names.length === 0) return `${label}: (none)`;
  const shown = names.slice(0, limit).join(", ");
  const omitted = names.length - limit;
  return omitted > 0 ? `${label}: ${shown}, … (+${omitted} more)` : `${label}: ${shown}`;
}

const HISTORY_KINDS = [
  ["User", "user"],
  ["Assistant", "assistant"],
  ["Tool results", "toolResults"],
  ["Summaries", "summaries"],
] as const;

/**
 * The messages sent, by kind, with the counted tokens. `Other` appears only when the report has
 * some, so the usual four lines stay fixed.
 */
export function historyLines(report: ContextRunReport): string[] {
  const { chars, tokens, messages } = report.history;
  const totalChars = chars.user + chars.assistant + chars.toolResults + chars.summaries + chars.other;
  const totalTokens = tokens.user + tokens.assistant + tokens.toolResults + tokens.summaries + tokens.other;
  const lines = [
    `History (${report.source}): ${formatInteger(messages)} messages, ${formatCharsAndTokens(totalChars, totalTokens)}`,
    ...HISTORY_KINDS.map(([label, key]) => `- ${label}: ${formatCharsAndTokens(chars[key], tokens[key])}`),
  ];
  if (chars.other > 0) lines.push(`- Other: ${formatCharsAndTokens(chars.other, tokens.other)}`);
  return lines;
}

/** `Session tokens: <used> / ctx=<window>`. */
export function sessionTokensLine(report: ContextRunReport, options: ContextTextOptions): string {
  const used = options.sessionTokens === undefined ? report.session.contextTokens : options.sessionTokens;
  const usedText = used === null || !Number.isFinite(used) ? "unknown" : formatInteger(used);
  const windowText = options.window > 0 ? formatInteger(options.window) : "?";
  return `Session tokens: ${usedText} / ctx=${windowText}`;
}

/** Joins blocks with one blank line between them, skipping empty blocks. */
export function joinBlocks(blocks: readonly (readonly string[])[]): string {
  return blocks
    .filter((block) => block.length > 0)
    .map((block) => block.join("\n"))
    .join("\n\n");
}

export function sum(values: readonly number[]): number {
  let total = 0;
  for (const value of values) total += value;
  return total;
}
